#!/usr/bin/env python3
"""Parse a Caffe training log into train and test tables (Caffe 1.0's
tools/extra/parse_log.py).

  parse_log.py caffe.log out_dir [--delimiter ,] [--verbose]
writes out_dir/caffe.log.train and out_dir/caffe.log.test: CSV tables with
the columns NumIters, Seconds (since the 'Solving' line), LearningRate, then
one column per net output, named as logged ('Test net output #0: accuracy =
0.9' gives a column 'accuracy'). NumIters is written as a float (0.0), as
Caffe's parser does.

It reads `caffe train` output with Caffe 1.0's glog prefix
('I0210 13:39:22.381027 ...'); see extract_seconds.py for the timestamps.
The learning rate of a row is the last 'lr = ' logged before it, so the
first row, logged before any, takes the second row's.
"""

import argparse
import csv
import os
import re
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_seconds  # noqa: E402  (lives beside this script)

_ITERATION = re.compile(r'Iteration (\d+)')
_TRAIN_OUTPUT = re.compile(r'Train net output #(\d+): (\S+) = ([\.\deE+-]+)')
_TEST_OUTPUT = re.compile(r'Test net output #(\d+): (\S+) = ([\.\deE+-]+)')
_LEARNING_RATE = re.compile(r'lr = ([-+]?[0-9]*\.?[0-9]+([eE]?[-+]?[0-9]+)?)')


class _Table(object):
    """The rows of one table (train or test), built one output line at a
    time. A row is complete once it has as many columns as the first row;
    the first row is complete when the next iteration's outputs begin."""

    def __init__(self, output_regex):
        self.regex = output_regex
        self.rows = []
        self.pending = None

    def feed(self, line, iteration, seconds, learning_rate):
        match = self.regex.search(line)
        if not match:
            return
        if self.pending is None or self.pending['NumIters'] != iteration:
            if self.pending is not None:
                self.rows.append(self.pending)
            self.pending = OrderedDict([('NumIters', iteration),
                                        ('Seconds', seconds),
                                        ('LearningRate', learning_rate)])
        self.pending[match.group(2)] = float(match.group(3))
        if self.rows and len(self.pending) == len(self.rows[0]):
            self.rows.append(self.pending)
            self.pending = None

    def finish(self):
        # A row still open at the end (the only row of a log with a single
        # test pass, or a truncated last one) is kept, not dropped.
        if self.pending is not None:
            self.rows.append(self.pending)
            self.pending = None
        fix_initial_nan_learning_rate(self.rows)
        return self.rows


def parse_log(path_to_log):
    """Parse a caffe train log.

    Returns (train_dict_list, test_dict_list): the rows of the two tables,
    each an OrderedDict of column name -> float.
    """
    train = _Table(_TRAIN_OUTPUT)
    test = _Table(_TEST_OUTPUT)
    iteration = -1
    learning_rate = float('NaN')

    year = extract_seconds.get_log_created_year(path_to_log)
    with open(path_to_log) as f:
        try:
            start_time = extract_seconds.get_start_time(f, year)
        except ValueError as e:
            raise ValueError('%s: %s' % (path_to_log, e))
        if start_time is None:
            raise ValueError('%s: no "Solving" line; not a caffe train log' %
                             path_to_log)
        last_time = start_time

        # Reading goes on after the 'Solving' line.
        for line in f:
            match = _ITERATION.search(line)
            if match:
                iteration = float(match.group(1))
            if iteration == -1:
                continue  # nothing to read before the first iteration

            try:
                time = extract_seconds.extract_datetime_from_line(line, year)
            except ValueError:
                continue  # not a glog line (e.g. output of a resumed solver)
            if time.month < last_time.month:
                # The log ran past new year; the lines carry no year.
                year += 1
                time = extract_seconds.extract_datetime_from_line(line, year)
            last_time = time
            seconds = (time - start_time).total_seconds()

            match = _LEARNING_RATE.search(line)
            if match:
                learning_rate = float(match.group(1))

            train.feed(line, iteration, seconds, learning_rate)
            test.feed(line, iteration, seconds, learning_rate)

    return train.finish(), test.finish()


def fix_initial_nan_learning_rate(dict_list):
    """Give the first row (logged before any 'lr = ' line, so NaN) the
    learning rate of the second, when there is one."""
    if len(dict_list) > 1:
        dict_list[0]['LearningRate'] = dict_list[1]['LearningRate']


def save_csv_files(logfile_path, output_dir, train_dict_list, test_dict_list,
                   delimiter=',', verbose=False):
    """Write <log basename>.train and <log basename>.test into output_dir
    (caffe.INFO gives caffe.INFO.train and caffe.INFO.test)."""
    log_basename = os.path.basename(logfile_path)
    write_csv(os.path.join(output_dir, log_basename + '.train'),
              train_dict_list, delimiter, verbose)
    write_csv(os.path.join(output_dir, log_basename + '.test'),
              test_dict_list, delimiter, verbose)


def write_csv(output_filename, dict_list, delimiter, verbose=False):
    """Write rows as CSV with a header line; no file for no rows."""
    if not dict_list:
        if verbose:
            print('Not writing %s; no lines to write' % output_filename)
        return
    with open(output_filename, 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=list(dict_list[0].keys()),
                                dialect=csv.excel, delimiter=delimiter)
        writer.writeheader()
        writer.writerows(dict_list)
    if verbose:
        print('Wrote %s' % output_filename)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Parse a Caffe training log into two CSV files with the '
                    'training and the testing information')
    parser.add_argument('logfile_path', help='Path to log file')
    parser.add_argument('output_dir',
                        help='Directory in which to place output CSV files')
    parser.add_argument('--verbose', action='store_true',
                        help='Print some extra info (e.g., output filenames)')
    parser.add_argument('--delimiter', default=',',
                        help="Column delimiter in output files "
                             "(default: '%(default)s')")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        train_dict_list, test_dict_list = parse_log(args.logfile_path)
    except (OSError, ValueError) as e:
        sys.exit('parse_log.py: %s' % e)
    save_csv_files(args.logfile_path, args.output_dir, train_dict_list,
                   test_dict_list, delimiter=args.delimiter,
                   verbose=args.verbose)


if __name__ == '__main__':
    main()

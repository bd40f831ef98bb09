#!/usr/bin/env python3
"""Timestamps of a Caffe training log (Caffe 1.0's
tools/extra/extract_seconds.py).

Lines are glog's: 'I0210 13:39:22.381027 25210 solver.cpp:204] ...', a
severity letter, MMDD, the time; the year is not in the line, so it is taken
from the log file's creation time. As a script,
  extract_seconds.py input.log output.txt
writes, for each line naming an 'Iteration', the seconds since 'Solving'.
"""
import datetime
import os
import re
import sys

# glog >= 0.6 puts the year in the prefix by default ('I20261121 ...'),
# which Caffe 1.0's parser reads as month 20: say so instead.
_YEAR_PREFIX = re.compile(r'^[IWEF]\d{8}$')


def extract_datetime_from_line(line, year):
    """The datetime of a glog line, in the given year.
    Raises ValueError for a line without a Caffe 1.0 glog prefix."""
    fields = line.strip().split()
    if len(fields) < 2:
        raise ValueError('not a glog line: %r' % line)
    if _YEAR_PREFIX.match(fields[0]):
        raise ValueError(
            'glog line with the year in its prefix (%s, glog >= 0.6 '
            'default), not Caffe 1.0\'s I<MMDD>: %r. Log the training '
            'with GLOG_log_year_in_prefix=false (or '
            '--log_year_in_prefix=false).' % (fields[0], line.strip()))
    month = int(fields[0][1:3])
    day = int(fields[0][3:])
    timestamp = fields[1]
    pos = timestamp.rfind('.')
    hour, minute, second = [int(x) for x in timestamp[:pos].split(':')]
    microsecond = int(timestamp[pos + 1:])
    return datetime.datetime(year, month, day, hour, minute, second,
                             microsecond)


def get_log_created_year(input_file):
    """The year of the log file's creation (status change) time."""
    log_created_time = os.path.getctime(input_file)
    return datetime.datetime.fromtimestamp(log_created_time).year


def get_start_time(line_iterable, year):
    """The datetime of the first 'Solving' line, or None."""
    for line in line_iterable:
        line = line.strip()
        if line.find('Solving') != -1:
            return extract_datetime_from_line(line, year)
    return None


def extract_seconds(input_file, output_file):
    with open(input_file, 'r') as f:
        lines = f.readlines()
    log_created_year = get_log_created_year(input_file)
    start_datetime = get_start_time(lines, log_created_year)
    if start_datetime is None:
        raise ValueError('%s: no "Solving" line; not a caffe train log' %
                         input_file)

    with open(output_file, 'w') as out:
        for line in lines:
            line = line.strip()
            if line.find('Iteration') != -1:
                dt = extract_datetime_from_line(line, log_created_year)
                elapsed_seconds = (dt - start_datetime).total_seconds()
                out.write('%f\n' % elapsed_seconds)


if __name__ == '__main__':
    if len(sys.argv) < 3:
        print('Usage: ./extract_seconds input_file output_file')
        sys.exit(1)
    extract_seconds(sys.argv[1], sys.argv[2])

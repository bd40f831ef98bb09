#!/usr/bin/env python3
"""Plot training curves of caffe train logs to a PNG (Caffe 1.0's
tools/extra/plot_training_log.py.example, on top of parse_log.py).

  plot_training_log.py chart_type[0-7] /where/to/save.png /path/to/first.log ...

draws one curve per log (labelled with the log's name without '.log') of
  0: Test accuracy  vs. Iters        4: Train learning rate  vs. Iters
  1: Test accuracy  vs. Seconds      5: Train learning rate  vs. Seconds
  2: Test loss  vs. Iters            6: Train loss  vs. Iters
  3: Test loss  vs. Seconds          7: Train loss  vs. Seconds
Test accuracy and loss are the test outputs named 'accuracy' and 'loss'
(else test outputs #0 and #1, as Caffe's parse_log.sh took them); train
loss is the train output 'loss' (else #0). Log names must end in '.log'.
Rendering uses matplotlib's Agg backend: no display is needed.
"""

import os
import sys

import matplotlib
matplotlib.use('Agg')
from matplotlib.figure import Figure  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parse_log  # noqa: E402  (lives beside this script)

LOG_SUFFIX = '.log'
SEPARATOR = '  vs. '

# y field -> (table, column name, position among that table's outputs)
_Y_FIELDS = {
    'Test accuracy': ('test', 'accuracy', 0),
    'Test loss': ('test', 'loss', 1),
    'Train learning rate': ('train', 'LearningRate', None),
    'Train loss': ('train', 'loss', 0),
}
_X_FIELDS = {'Iters': 'NumIters', 'Seconds': 'Seconds'}
_MARKERS = ['o', 's', '^', 'D', 'v', '*', 'x', '+', 'p', 'h']


def get_supported_chart_types():
    """Chart descriptions, indexed by chart type number (Caffe's order:
    y fields sorted, each against Iters then Seconds)."""
    return ['%s%s%s' % (y, SEPARATOR, x)
            for y in sorted(_Y_FIELDS) for x in ('Iters', 'Seconds')]


def get_chart_type_description(chart_type):
    return get_supported_chart_types()[chart_type]


def get_field_descriptions(chart_type):
    """(x axis field, y axis field) of a chart type."""
    y_field, x_field = get_chart_type_description(chart_type).split(SEPARATOR)
    return x_field, y_field


def is_valid_chart_type(chart_type):
    return 0 <= chart_type < len(get_supported_chart_types())


def get_data_label(path_to_log):
    """Legend label: the log's file name without its '.log'."""
    name = os.path.basename(path_to_log)
    return name[:-len(LOG_SUFFIX)] if name.endswith(LOG_SUFFIX) else name


def get_legend_loc(chart_type):
    _, y_field = get_field_descriptions(chart_type)
    if 'loss' in y_field or 'learning rate' in y_field:
        return 'upper right'
    return 'lower right'


def _column(rows, y_field, path_to_log):
    table, name, position = _Y_FIELDS[y_field]
    if not rows:
        raise ValueError('%s: no %s outputs in the log' % (path_to_log, table))
    if name in rows[0]:
        return name
    outputs = list(rows[0].keys())[3:]  # after NumIters, Seconds, LR
    if position is not None and position < len(outputs):
        return outputs[position]
    raise ValueError('%s: no %s column for "%s" (columns: %s)' %
                     (path_to_log, table, y_field, ', '.join(rows[0])))


def load_data(path_to_log, chart_type):
    """(x values, y values) of one log for a chart type."""
    x_field, y_field = get_field_descriptions(chart_type)
    train_rows, test_rows = parse_log.parse_log(path_to_log)
    rows = test_rows if _Y_FIELDS[y_field][0] == 'test' else train_rows
    column = _column(rows, y_field, path_to_log)
    xs = [row[_X_FIELDS[x_field]] for row in rows]
    ys = [row.get(column, float('nan')) for row in rows]
    return xs, ys


def plot_chart(chart_type, path_to_png, path_to_log_list):
    """Draw the chart of chart_type for each log into path_to_png; returns
    the matplotlib Figure (one line per log)."""
    x_field, y_field = get_field_descriptions(chart_type)
    fig = Figure(figsize=(8, 6))
    ax = fig.add_subplot(1, 1, 1)
    for i, path_to_log in enumerate(path_to_log_list):
        xs, ys = load_data(path_to_log, chart_type)
        ax.plot(xs, ys, label=get_data_label(path_to_log),
                marker=_MARKERS[i % len(_MARKERS)], linewidth=0.75)
    ax.legend(loc=get_legend_loc(chart_type), ncol=1)
    ax.set_title(get_chart_type_description(chart_type))
    ax.set_xlabel(x_field)
    ax.set_ylabel(y_field)
    fig.savefig(path_to_png)
    return fig


def usage():
    types = get_supported_chart_types()
    lines = ['Usage:',
             '    plot_training_log.py chart_type[0-%d] /where/to/save.png '
             '/path/to/first.log ...' % (len(types) - 1),
             'Notes:',
             '    1. Supporting multiple logs.',
             '    2. Log file name must end with the lower-cased "%s".'
             % LOG_SUFFIX,
             'Supported chart types:']
    lines += ['    %d: %s' % (i, t) for i, t in enumerate(types)]
    return '\n'.join(lines)


def main(argv):
    """Command line; returns the exit status."""
    if len(argv) < 4:
        print(usage())
        return 1
    try:
        chart_type = int(argv[1])
    except ValueError:
        chart_type = -1
    if not is_valid_chart_type(chart_type):
        print('%s is not a valid chart type.\n%s' % (argv[1], usage()),
              file=sys.stderr)
        return 1
    path_to_png = argv[2]
    if not path_to_png.endswith('.png'):
        print('Path must end with png: %s' % path_to_png, file=sys.stderr)
        return 1
    path_to_logs = argv[3:]
    for path_to_log in path_to_logs:
        if not os.path.exists(path_to_log):
            print('Path does not exist: %s' % path_to_log, file=sys.stderr)
            return 1
        if not path_to_log.endswith(LOG_SUFFIX):
            print('Log file must end in %s: %s\n%s' %
                  (LOG_SUFFIX, path_to_log, usage()), file=sys.stderr)
            return 1
    try:
        plot_chart(chart_type, path_to_png, path_to_logs)
    except ValueError as e:
        print('plot_training_log.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/bin/bash
# run_octave_tests.sh: runs the matcaffe test suite (caffe.run_tests) under
# GNU Octave.  Exits 0 only when every test passed (and at least one ran).
#
#   matlab/run_octave_tests.sh [filter]    # filter: part of 'suite/test'
#
# Needs the MEX gateway built into matlab/+caffe/private (CMake target
# matcaffe, or mkoctfile by hand).  Environment:
#   CAFFE_TOOLS_DIR  the build's tools directory (default <repo>/build/tools)
#   OCTAVE           the interpreter (default octave-cli, else octave)
#   PYTHON           Python 3 with numpy and protobuf (default /usr/bin/python3)
#   GLOG_minloglevel default 2 here, to keep the library's INFO log quiet
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
filter="${1:-}"
if [[ ! "$filter" =~ ^[A-Za-z0-9_/]*$ ]]; then
  echo "run_octave_tests.sh: filter may hold only letters, digits, _ and /" >&2
  exit 2
fi

octave="${OCTAVE:-}"
if [[ -z "$octave" ]]; then
  octave="$(command -v octave-cli || command -v octave || true)"
fi
if [[ -z "$octave" ]]; then
  echo "run_octave_tests.sh: GNU Octave not found" >&2
  exit 2
fi
if [[ ! -f "$here/+caffe/private/caffe_.mex" ]]; then
  echo "run_octave_tests.sh: $here/+caffe/private/caffe_.mex is not built" >&2
  exit 2
fi

export GLOG_minloglevel="${GLOG_minloglevel:-2}"
export CAFFE_TOOLS_DIR="${CAFFE_TOOLS_DIR:-$here/../build/tools}"

# Failure is reported with error(), which makes Octave exit with status 1
# (Octave 7's exit() prints a spurious message on the way out).
exec "$octave" --norc --quiet --no-gui --eval "
  addpath('$here');
  r = caffe.run_tests('$filter');
  if isempty(r)
    error('matcaffe:noTests', 'no test matches ''$filter''');
  end
  failed = sum(~[r.passed]);
  if failed > 0
    error('matcaffe:testsFailed', '%d of %d matcaffe tests failed', ...
      failed, numel(r));
  end"

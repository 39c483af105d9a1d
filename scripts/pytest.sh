#!/usr/bin/env bash
# Run the test suite; "no tests collected" (pytest exit 5) is a failure, not a silent pass.
set -u
py=${1:-.venv/bin/python}
shift || true
"$py" -m pytest "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"

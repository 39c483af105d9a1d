#!/usr/bin/env bash
# Run the test suite; "no tests collected" (pytest exit 5) is a failure, not a silent pass.
set -u
py=${1:-.venv/bin/python}
shift || true
# Two workers, whole files per worker (ADR-0011), unless the caller chose (-n 0 runs serially).
case " $* " in
  *" -n "*|*" -n="*|*" --numprocesses"*) parallel=() ;;
  *) parallel=(-n 2 --dist loadfile) ;;
esac
"$py" -m pytest "${parallel[@]}" "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"

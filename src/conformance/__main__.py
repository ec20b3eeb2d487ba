"""`python -m conformance`: the same command line as the `conformance` script."""

from conformance.cli import main

raise SystemExit(main())

"""Subcommands beyond the core ones in `conformance.cli`, one module each (`add_parser(sub)`)."""

"""Flowsheet engine: a config becomes blocks, streams and specs, solved in order into a results document."""

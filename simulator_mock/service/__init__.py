"""The HTTP service in front of the flowsheet engine: routes, auth, retention, workers, lifetime."""

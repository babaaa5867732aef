"""The service's routes, one router per concern (health, schemas, runs, files), included by `create_app`."""

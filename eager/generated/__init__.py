"""Modules generated from ops.yaml and backward.yaml by `python -m eager.api_gen`."""

"""Collectives on tensors (filled in by the collectives work)."""
__all__ = []

"""DataParallel (filled in by the data-parallel work)."""
__all__ = []

"""The reliability tests' fixtures; they live in :mod:`reliability_helpers`."""

from reliability_helpers import native_results, shadows  # noqa: F401 - registers the fixtures

"""The common ground family's part of the policies layer."""

"""The persuasion family's part of the policies layer."""

"""The negotiation family's part of the policies layer."""

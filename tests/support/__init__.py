"""Helpers the tests share (scripted peers, shell clients, polling, stream reading, APKs)."""

"""Installable package `fedcomp` (metadata in pyproject.toml; setup.py kept as the design card asks)."""
from setuptools import setup

setup()

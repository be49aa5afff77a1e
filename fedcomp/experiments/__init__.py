"""Experiments no paper has run (each module documents its question, design and law)."""

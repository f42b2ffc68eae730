"""Scorers: per task family, what SQL cannot say well (alignments, resampling); pure functions."""

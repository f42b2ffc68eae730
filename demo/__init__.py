"""The demo campaign: open data (UD French GSD, ACTER) and simulated systems for every family,
written as a campaign folder by ``scorehouse demo``. Not part of the engine (``warehouse/``),
which imports it only to run that command."""

from scorehouse.demo.campaign import write_demo_campaign

__all__ = ["write_demo_campaign"]

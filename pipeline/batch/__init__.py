"""Batches: many scenes and parameter sweeps, cached and resumable, locally or on Dask."""

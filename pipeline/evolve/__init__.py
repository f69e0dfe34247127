"""`corpus evolve`: evolution of scene and controller parameters on the batch executors.

    spec.py        an `evolution:` file -> Evolution (located problems, gene paths checked)
    space.py       genotype spaces (a named real vector with bounds)
    paths.py       does a gene's field path exist in the scene ("did you mean")
    algorithms.py  (1+1), (mu, lambda) / (mu + lambda), generational GA; cmaes.py: CMA-ES
    evaluate.py    one individual on a worker: chunked run, stop condition, time limit, fitness
    run.py         the generation loop: seeds, executor, database, checkpoints
    database.py    the SQLite log; checkpoint.py the resumable state; progress.py the bar
    outputs.py     individuals as scene files `corpus run` replays; plot.py fitness.png
    cli.py         the subcommand

docs/evolve.md describes the file format and the roobot experiment.
"""

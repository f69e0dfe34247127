"""Urban's particle/spring engine: a second kind of simulation graph.

Point masses and force objects with explicit membership, a floor that is both a force and a
discrete event, fluid media with flow fields, and Euler / midpoint / RK4 integrators, run by a
numba step loop. It shares the scene, controller (`pipeline.control.fsm`), recording and export
stages with the articulated engine. World z is up (Urban's y is our z).

    scene = pipeline.load("scenes/roobot_hop.yaml")     # a pipeline.spec.types.Scene
    sim = pipeline.compile(scene)                       # a ParticleSimulation (simulation.py)
    recording = sim.run()

    creature = resolve_particles(dict_or_node)          # pipeline.particles.spec
    sim = compile_particles(scene_of(creature, dt=1/500))
"""

"""`corpus info FILE`: bodies, joints, DOF and total mass of a creature or scene.

Masses come from the compile stage (`pipeline.compiler.build.body_mass_properties`:
geometry x density, given masses, or explicit inertials), so they are the masses the
simulation will use.
"""
from __future__ import annotations

from pipeline.spec.joints import JOINT_NDOF
from pipeline.spec.resolve import load_scene


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="bodies, joints, DOF and mass of a creature or scene",
                       description="Print the bodies, joints, degrees of freedom and masses of a creature or scene.")
    p.add_argument("file", metavar="FILE", help="creature or scene YAML file")
    p.add_argument("--allow-outside", action="store_true", help="allow includes outside the project")
    p.set_defaults(func=main)


def body_masses(creature) -> list[float]:
    from pipeline.compiler.build import body_mass_properties

    return [float(body_mass_properties(body)[0]) for body in creature.bodies]


def creature_dof(creature) -> int:
    return sum(JOINT_NDOF[b.joint.type] for b in creature.bodies
               if not (b.parent is None and creature.root_mode == "fixed"))


def describe_particles(creature) -> tuple[list[str], float, int]:
    """Lines, mass and DOF of a particle creature (pipeline.particles): 3 DOF per moving mass."""
    mass = sum(m.mass for m in creature.masses)
    dof = 3 * sum(1 for m in creature.masses if m.integrate)
    lines = [f"particles {creature.name}: {len(creature.masses)} point masses, {len(creature.forces)} "
             f"forces, {dof} DOF, {mass:.6g} kg"]
    lines += [f"  {m.name}  {m.mass:.6g}" for m in creature.masses]
    return lines, mass, dof


def describe_scene(scene) -> str:
    lines = []
    total_mass = total_dof = total_bodies = 0
    for creature in scene.creatures:
        if not hasattr(creature, "bodies"):
            more, mass, dof = describe_particles(creature)
            lines += more
            total_mass += mass
            total_dof += dof
            total_bodies += len(creature.masses)
            continue
        masses = body_masses(creature)
        dof = creature_dof(creature)
        total_mass += sum(masses)
        total_dof += dof
        total_bodies += len(creature.bodies)
        lines.append(f"creature {creature.name} (root {creature.root_mode}): {len(creature.bodies)} "
                     f"bod{'y' if len(creature.bodies) == 1 else 'ies'}, {dof} DOF, {sum(masses):.6g} kg")
        width = max(len(b.name) for b in creature.bodies)
        lines.append(f"  {'body':<{width}}  {'parent':<{width}}  {'joint':<9}  dof  mass (kg)")
        for body, mass in zip(creature.bodies, masses):
            welded = body.parent is None and creature.root_mode == "fixed"
            jtype = "fixed" if welded else body.joint.type
            lines.append(f"  {body.name:<{width}}  {body.parent or '-':<{width}}  {jtype:<9}  "
                         f"{0 if welded else JOINT_NDOF[jtype]:>3}  {mass:.6g}")
    header = (f"scene {scene.name}: {len(scene.creatures)} creature{'s' * (len(scene.creatures) != 1)}, "
              f"{total_bodies} bodies, {total_dof} DOF, total mass {total_mass:.6g} kg")
    return "\n".join([header, *lines])


def main(args) -> int:
    print(describe_scene(load_scene(args.file, allow_outside=args.allow_outside)))
    return 0

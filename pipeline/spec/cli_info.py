"""`corpus info FILE`: bodies, joints, DOF and total mass of a creature or scene.

Masses come from the compile stage (`pipeline.compiler.build.body_mass_properties`:
geometry x density, given masses, or explicit inertials), so they are the masses the
simulation will use.
"""
from __future__ import annotations

from pipeline.spec.joints import JOINT_NDOF
from pipeline.spec.resolve import load


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


def describe_creature(creature) -> tuple[list[str], float, int, int]:
    """Lines, mass, DOF and body count of one creature of either engine."""
    if not hasattr(creature, "bodies"):
        lines, mass, dof = describe_particles(creature)
        return lines, mass, dof, len(creature.masses)
    masses = body_masses(creature)
    dof = creature_dof(creature)
    n = len(creature.bodies)
    lines = [f"creature {creature.name} (root {creature.root_mode}): {n} "
             f"bod{'y' if n == 1 else 'ies'}, {dof} DOF, {sum(masses):.6g} kg"]
    width = max(len(b.name) for b in creature.bodies)
    lines.append(f"  {'body':<{width}}  {'parent':<{width}}  {'joint':<9}  dof  mass (kg)")
    for body, mass in zip(creature.bodies, masses):
        welded = body.parent is None and creature.root_mode == "fixed"
        jtype = "fixed" if welded else body.joint.type
        lines.append(f"  {body.name:<{width}}  {body.parent or '-':<{width}}  {jtype:<9}  "
                     f"{0 if welded else JOINT_NDOF[jtype]:>3}  {mass:.6g}")
    return lines, sum(masses), dof, n


def describe(spec) -> str:
    """A creature file's creature, or a scene: a header with the totals, then each creature."""
    if not hasattr(spec, "creatures"):
        return "\n".join(describe_creature(spec)[0])
    lines = []
    total_mass = total_dof = total_bodies = 0
    for creature in spec.creatures:
        more, mass, dof, n = describe_creature(creature)
        lines += more
        total_mass += mass
        total_dof += dof
        total_bodies += n
    header = (f"scene {spec.name}: {len(spec.creatures)} creature{'s' * (len(spec.creatures) != 1)}, "
              f"{total_bodies} bodies, {total_dof} DOF, total mass {total_mass:.6g} kg")
    return "\n".join([header, *lines])


def main(args) -> int:
    print(describe(load(args.file, allow_outside=args.allow_outside)))
    return 0

"""Kernels loaded from numba's cache without parsing their LLVM IR.

numba caches a kernel as its machine code (an ELF object) and the LLVM bitcode of everything
it linked. Loading one, numba parses that bitcode into an LLVM module only to list the
symbols the machine code defines, and keeps the module in case a kernel compiled later in the
process links against this one. For the articulated engine's `advance_frames` that module
is 21 MB of the process and 0.2 s of the load (docs/simulation.md, "Memory and start-up").
Here the symbols come from the object's ELF symbol table, and the bitcode is parsed only
when a compile links against the library. Objects that are not 64-bit little-endian ELF
(macOS, Windows), or a cached state of another shape (another numba), load numba's way.
"""
from __future__ import annotations

import struct

SHT_SYMTAB = 2
SHN_UNDEF = 0
NAMED_KINDS = (0, 1, 2)  # STT_NOTYPE, STT_OBJECT, STT_FUNC (not sections or files)


def defined_symbols(obj: bytes) -> set[str] | None:
    """The names a 64-bit little-endian ELF object defines; None if it is not one."""
    if obj[:6] != b"\x7fELF\x02\x01":
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != SHT_SYMTAB:
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name, info, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if name and shndx != SHN_UNDEF and info & 0xF in NAMED_KINDS:
                start = strings + name
                names.add(obj[start:obj.index(b"\0", start)].decode())
    return names


def patch(codegen) -> None:
    """Load `codegen`'s (numba.core.codegen's) cached kernels this way."""
    import llvmlite.binding as ll

    library = codegen.CPUCodeLibrary
    if getattr(library, "_corpus_lazy_ir", False):
        return
    numba_unserialize = library._unserialize.__func__
    numba_for_linking = library._get_module_for_linking

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        names = None
        if kind == "object" and isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], bytes):
            names = defined_symbols(data[0])
        if names is None:
            return numba_unserialize(cls, codegen_, state)
        object_code, shared_bitcode = data
        self = codegen_.create_library(name)
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._corpus_bitcode = shared_bitcode
        self._finalize_final_module()
        codegen_._engine._defined_symbols |= names
        return self

    def _get_module_for_linking(self):
        bitcode = getattr(self, "_corpus_bitcode", None)
        if bitcode is not None:
            self._shared_module = ll.parse_bitcode(bitcode)
            self._corpus_bitcode = None
        return numba_for_linking(self)

    library._unserialize = classmethod(_unserialize)
    library._get_module_for_linking = _get_module_for_linking
    library._corpus_lazy_ir = True

"""What Dockerfile.serve proves about an image's filesystem while it builds it (run by the image's own
interpreter, with no shell and no ldd: the serve image has neither).

    python3 -I image_check.py [DIR ...]    (default: /)

1. Every ELF file under DIR resolves all its shared libraries: the dynamic loader named by the
   interpreter's PT_INTERP lists each one (``ld.so --list``, what ldd runs), and no line says "not found".
2. No symbolic link under DIR leads nowhere.
3. Everything imports: every extension module of the standard library and the environment (a
   stripped or pruned library fails here, not at a user's first request), every top-level module of
   every installed distribution, and the modules serving loads (SERVE_MODULES; the local embedder's
   too when onnxruntime is installed).

Exits 1 with one line per problem.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import struct
import subprocess
import sys
import sysconfig
from pathlib import Path

SERVE_MODULES = (
    "docs_mcp.server.startup.serving",
    "docs_mcp.server.tools.app",
    "docs_mcp.server.transport.http",
    "docs_mcp.cli.commands.serve",
    "docs_mcp.artifact.pulling",
    "pyarrow.compute",
    "pyarrow.dataset",
    "lancedb",
    "uvloop",
    "cryptography.exceptions",
)
LOCAL_EMBEDDER_MODULES = ("docs_mcp.embedding.local", "onnxruntime", "tokenizers")
# Pseudo-filesystems and what the engine mounts at run time are not the image's.
SKIPPED_TREES = ("/proc", "/sys", "/dev")
PT_INTERP = 3


def elf_interpreter(path: str) -> str:
    """The dynamic loader an ELF executable names (its PT_INTERP), for 64-bit little-endian ELF."""
    with open(path, "rb") as elf:
        header = elf.read(64)
        (phoff,) = struct.unpack_from("<Q", header, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", header, 0x36)
        for index in range(phnum):
            elf.seek(phoff + index * phentsize)
            p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack("<IIQQQQ", elf.read(40))
            if p_type == PT_INTERP:
                elf.seek(p_offset)
                return elf.read(p_filesz).rstrip(b"\0").decode()
    raise SystemExit(f"image_check: {path} names no dynamic loader (PT_INTERP)")


def files_under(roots: list[str]) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in SKIPPED_TREES]
            found += [Path(folder, name) for name in names]
    return found


def is_elf(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    with path.open("rb") as file:
        return file.read(4) == b"\x7fELF"


def unresolved_libraries(elves: list[Path], loader: str) -> list[str]:
    problems = []
    for path in elves:
        listed = subprocess.run([loader, "--list", str(path)], capture_output=True, text=True, check=False)
        problems += [f"{path}: {line.strip()}" for line in listed.stdout.splitlines() if "not found" in line]
    return problems


def dangling_links(paths: list[Path]) -> list[str]:
    return [
        f"{path}: a link to {os.readlink(path)}, which is missing"
        for path in paths
        if path.is_symlink() and not path.exists()
    ]


def extension_modules() -> list[str]:
    """Dotted names of the extension modules under the library folders of sys.path (the bare ``.so``
    suffix is left out: in wheels it names bundled libraries such as pyarrow's, not modules)."""
    suffixes = tuple(s for s in importlib.machinery.EXTENSION_SUFFIXES if s != ".so")
    names = []
    for base in {sysconfig.get_path("purelib"), sysconfig.get_config_var("DESTSHARED")}:
        for path in Path(base).rglob("*"):
            if not path.name.endswith(suffixes):
                continue
            relative = path.relative_to(base)
            stem = path.name[: -len(next(s for s in suffixes if path.name.endswith(s)))]
            parts = [*relative.parent.parts, stem]
            if all(part.isidentifier() for part in parts):
                names.append(".".join(parts))
    return sorted(names)


def top_level_modules() -> list[str]:
    """The top-level modules and packages every installed distribution's RECORD lists."""
    names = set()
    for dist in importlib.metadata.distributions():
        for file in dist.files or []:
            parts = file.parts
            if len(parts) == 1 and parts[0].endswith(".py"):
                names.add(parts[0].removesuffix(".py"))
            elif len(parts) > 1 and parts[1] == "__init__.py":
                names.add(parts[0])
    return sorted(name for name in names if name.isidentifier())


def failed_imports(modules: list[str]) -> list[str]:
    problems = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # every failure is reported; none stops the check
            problems.append(f"import {name}: {type(error).__name__}: {error}")
    return problems


def main(roots: list[str]) -> int:
    files = files_under(roots or ["/"])
    loader = elf_interpreter(os.path.realpath(sys.executable))
    elves = [path for path in files if is_elf(path)]
    modules = [*extension_modules(), *top_level_modules(), *SERVE_MODULES]
    if importlib.util.find_spec("onnxruntime") is not None:
        modules += LOCAL_EMBEDDER_MODULES
    problems = unresolved_libraries(elves, loader) + dangling_links(files) + failed_imports(modules)
    for problem in problems:
        print(f"image_check: {problem}", file=sys.stderr)
    if not problems:
        print(f"image_check: {len(elves)} ELF files resolve with {loader}, {len(modules)} modules import")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Regenerate the controller's Python modules in `_proto/` from `proto/emulator_controller.proto`.

    python -m pytest_mobile_agent.emulator.regenerate [SOURCE.proto] [OUT_DIR]

The proto is compiled as `pytest_mobile_agent/emulator/_proto/emulator_controller.proto`, so the
generated gRPC module imports its messages by their package path and the modules work from the
installed package. The source is copied beside them: it is the proto the driver speaks
(`emulator.PROTO_SOURCE`), and it ships with the package where `proto/` does not.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

PROTO_NAME = "emulator_controller.proto"
PACKAGE_PATH = Path("pytest_mobile_agent", "emulator", "_proto")
GENERATED = ("emulator_controller_pb2.py", "emulator_controller_pb2.pyi", "emulator_controller_pb2_grpc.py")
PROTO_DIR = Path(__file__).resolve().parent / "_proto"
REPO_PROTO = Path(__file__).resolve().parents[2] / "proto" / PROTO_NAME


def generate(source: Path = REPO_PROTO, out_dir: Path = PROTO_DIR) -> list[Path]:
    """Compile `source` with grpcio-tools into `out_dir`; returns the files written."""
    from grpc_tools import protoc  # a dev dependency: only regeneration needs it

    if not source.is_file():
        raise FileNotFoundError(f"no proto at {source}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mobile-agent-proto-") as tmp:
        root = Path(tmp)
        (root / PACKAGE_PATH).mkdir(parents=True)
        shutil.copyfile(source, root / PACKAGE_PATH / PROTO_NAME)
        well_known = Path(protoc.__file__).resolve().parent / "_proto"
        args = [
            "grpc_tools.protoc",
            f"-I{root}",
            f"-I{well_known}",
            f"--python_out={root}",
            f"--pyi_out={root}",
            f"--grpc_python_out={root}",
            str(PACKAGE_PATH / PROTO_NAME),
        ]
        code = protoc.main(args)
        if code != 0:
            raise RuntimeError(f"grpc_tools.protoc failed with exit status {code} on {source}")
        written = []
        for name in (*GENERATED, PROTO_NAME):
            target = out_dir / name
            shutil.copyfile(root / PACKAGE_PATH / name, target)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    source = Path(args[0]) if args else REPO_PROTO
    out_dir = Path(args[1]) if len(args) > 1 else PROTO_DIR
    for path in generate(source, out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

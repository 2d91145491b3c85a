"""A policy's ``.npz`` file, read without pickle: what :meth:`LinearPolicy.save
<king.env.policies.base.LinearPolicy.save>` and :meth:`MlpPolicy.save
<king.env.policies.mlp.MlpPolicy.save>` write, checked array by array, and refused in one
sentence that ends with :data:`POLICY_FILE`, what such a file must hold.

Every policy file names its ``kind`` and the ``observation_version`` it was trained on,
so a file made for another layout is refused rather than played badly.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from king.env.observation import ACTION_COUNT, OBS_SIZE, OBSERVATION_VERSION
from king.errors import KingError

__all__ = [
    "MAX_ARRAY_BYTES",
    "POLICY_FILE",
    "PolicyFileError",
    "numbers",
    "read_arrays",
    "refuse",
    "require",
    "text",
]


class PolicyFileError(KingError, ValueError):
    """A policy file that cannot be read, or was saved for another observation layout;
    the message says why, and what a policy file must hold."""


#: The largest array a policy file may unpack to (a network of two layers of 256 is ~1 MB).
MAX_ARRAY_BYTES = 64 * 1024 * 1024
#: The arrays every policy file holds (a linear one: all four).
POLICY_ARRAYS = ("weights", "bias", "kind", "observation_version")
#: What every refusal of a policy file ends with: what such a file must hold.
POLICY_FILE = (
    "a policy file is the .npz archive that LinearPolicy.save writes, holding the arrays "
    f"weights ({ACTION_COUNT}, {OBS_SIZE}) and bias ({ACTION_COUNT},) of finite numbers, "
    f"kind 'linear-softmax' and observation_version {OBSERVATION_VERSION} (or MlpPolicy.save's, "
    "kind 'mlp-softmax'); a stable-baselines3 model's .zip (read with torch) or an .onnx "
    "network (run by onnxruntime) are policy files too"
)
#: What reading a damaged archive raises (RuntimeError: encrypted, or compressed in a
#: way zipfile does not know).
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError)
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def refuse(path: str | Path, reason: str) -> NoReturn:
    """Raise the one-sentence refusal of ``path``."""
    raise PolicyFileError(f"cannot read a policy from {path}: {reason}; {POLICY_FILE}")


def _archive_trouble(path: str | Path) -> str | None:
    """Why ``path`` is not an .npz archive at all, or ``None`` if it starts like one."""
    try:
        with open(path, "rb") as file:
            head = file.read(6)
    except FileNotFoundError:
        return "there is no such file"
    except OSError as error:
        return f"it cannot be opened ({error.strerror or error})"
    if head.startswith(_ZIP_MAGIC):
        return None
    if head == _NPY_MAGIC:
        return "it holds one .npy array, not an .npz archive of arrays"
    if head[:1] == b"\x80":
        return "it is a Python pickle (an old torch.save?), which is never read"
    return "it is not an .npz archive (a zip file)"


def _missing(names: list[str], wanted: tuple[str, ...]) -> str | None:
    """Why an archive holding ``names`` lacks ``wanted``, or ``None`` if it holds them."""
    missing = [name for name in wanted if name not in names]
    if not missing:
        return None
    if any(name.endswith("data.pkl") for name in names):
        return "it is a PyTorch file (torch.save), not a policy's .npz archive"
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return f"it lacks the arrays {', '.join(missing)} (it holds: {shown or 'nothing'})"


def read_arrays(path: str | Path) -> tuple[str, dict[str, NDArray[Any]]]:
    """The kind of a policy file and its other arrays (pickle never allowed), its
    ``observation_version`` checked against this king's; or a refusal."""
    trouble = _archive_trouble(path)
    if trouble is not None:
        refuse(path, trouble)
    try:
        with np.load(path, allow_pickle=False) as data:
            for member in data.zip.infolist() if data.zip is not None else []:
                if member.file_size > MAX_ARRAY_BYTES:
                    raise ValueError(
                        f"{member.filename} unpacks to {member.file_size} bytes; "
                        f"a policy's arrays are under {MAX_ARRAY_BYTES}"
                    )
            names = list(data.files)
            trouble = _missing(names, POLICY_ARRAYS if "kind" not in names else POLICY_ARRAYS[2:])
            if trouble is not None:
                raise ValueError(trouble)
            kind = _text(data["kind"])
            version = _version(data["observation_version"])
            arrays = {name: data[name] for name in names if name not in POLICY_ARRAYS[2:]}
    except DAMAGED as error:
        refuse(path, f"it is a damaged zip archive ({error or type(error).__name__})")
    except (OSError, KeyError, ValueError, TypeError) as error:
        refuse(path, str(error) or type(error).__name__)
    if version != OBSERVATION_VERSION:
        raise PolicyFileError(
            f"{path} was trained on observation layout {version}; "
            f"this king encodes layout {OBSERVATION_VERSION}"
        )
    return kind, arrays


def require(path: str | Path, arrays: dict[str, NDArray[Any]], wanted: tuple[str, ...]) -> None:
    """Refuse ``path`` unless its arrays include ``wanted``."""
    trouble = _missing(list(arrays), wanted)
    if trouble is not None:
        refuse(path, trouble)


def _text(array: NDArray[Any]) -> str:
    """The ``kind`` array: one string."""
    if array.shape != () or array.dtype.kind != "U":
        raise ValueError(f"its kind is {array.dtype} {array.shape}, not one string")
    return str(array)


def _version(array: NDArray[Any]) -> int:
    """The ``observation_version`` array: one integer."""
    if array.shape != () or array.dtype.kind not in "iu":
        raise ValueError(f"its observation_version is {array.dtype} {array.shape}, not an int")
    return int(array)


def numbers(path: str | Path, array: NDArray[Any], name: str) -> NDArray[np.float32]:
    """A policy array as float32, refused unless it holds finite real numbers."""
    if array.dtype.kind not in "fiu":
        refuse(path, f"the {name} are {array.dtype}, not numbers")
    result = array.astype(np.float32)
    if not np.isfinite(result).all():
        refuse(path, f"the {name} hold NaN or infinite values")
    return result


def text(path: str | Path, array: NDArray[Any], name: str) -> str:
    """A policy array that holds one string, refused otherwise."""
    if array.shape != () or array.dtype.kind != "U":
        refuse(path, f"its {name} is {array.dtype} {array.shape}, not one string")
    return str(array)

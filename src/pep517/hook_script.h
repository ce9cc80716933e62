// The Python side of the PEP 517 / PEP 660 hook runner (hooks.cc writes it into the call's
// work folder and runs it). Standard library only: it runs in a build environment that holds
// just the backend and its requirements.
#pragma once

#include <string_view>

namespace wv::build {

/// Run as `python -I RUNNER REQUEST RESULT` from the source tree. REQUEST is JSON with
/// `backend`, `backend_path`, `source_dir`, `hook`, `output_dir`, `metadata_directory`.
/// RESULT gets one of {"return": value}, {"hook_missing": true}, {"invalid_backend": why}.
/// A hook that raises: the traceback goes to stderr, exit status 1; a backend that cannot be
/// imported: the same with exit status kBackendUnavailableExit.
inline constexpr int kBackendUnavailableExit = 3;
inline constexpr std::string_view kHookRunnerScript = R"PY(# wvlock's PEP 517 hook runner
import importlib
import json
import os
import sys
import traceback

BACKEND_UNAVAILABLE_EXIT = 3  # hook_script.h: kBackendUnavailableExit


class InvalidBackend(Exception):
    """The project's build-system table names a backend PEP 517 does not allow."""


def inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def load_backend(request):
    source_dir = request["source_dir"]
    module_name, _, object_path = request["backend"].partition(":")
    module_name, object_path = module_name.strip(), object_path.strip()
    backend_path = []
    for entry in request["backend_path"]:
        folder = os.path.join(source_dir, entry)
        if not inside(folder, source_dir):
            raise InvalidBackend(f"backend-path entry {entry!r} is outside the source tree")
        backend_path.append(os.path.realpath(folder))
    sys.path[:0] = backend_path
    if request["backend"] == "setuptools.build_meta:__legacy__":
        # The fallback for projects without pyproject.toml: setup.py imports modules beside it,
        # as it did when run as a script (-I took the current folder off sys.path).
        sys.path.insert(0, source_dir)
    try:
        backend = importlib.import_module(module_name)
    except ImportError:
        traceback.print_exc()
        sys.exit(BACKEND_UNAVAILABLE_EXIT)
    if backend_path:
        # PEP 517: an in-tree backend must come from backend-path, not from the environment.
        origin = getattr(backend, "__file__", None)
        if origin is None or not any(inside(origin, folder) for folder in backend_path):
            raise InvalidBackend(
                f"backend {module_name!r} was imported from {origin}, not from backend-path")
    for name in object_path.split(".") if object_path else []:
        backend = getattr(backend, name)
    return backend


def call_hook(backend, request):
    name = request["hook"]
    hook = getattr(backend, name, None)
    if hook is None:
        return {"hook_missing": True}
    config_settings = {}
    output_dir = request["output_dir"]
    if name.startswith("get_requires_for_"):
        return {"return": hook(config_settings)}
    if name.startswith("prepare_metadata_for_"):
        return {"return": hook(output_dir, config_settings)}
    if name == "build_sdist":
        unsupported = getattr(backend, "UnsupportedOperation", None)
        try:
            return {"return": hook(output_dir, config_settings)}
        except Exception as error:
            # PEP 517: a backend that cannot make an sdist here says so with this exception.
            if isinstance(unsupported, type) and isinstance(error, unsupported):
                return {"hook_missing": True}
            raise
    metadata_directory = request["metadata_directory"] or None
    return {"return": hook(output_dir, config_settings, metadata_directory)}


def main(request_path, result_path):
    sys.dont_write_bytecode = True  # -I ignores PYTHONDONTWRITEBYTECODE
    with open(request_path, encoding="utf-8") as file:
        request = json.load(file)
    try:
        result = call_hook(load_backend(request), request)
    except InvalidBackend as error:
        result = {"invalid_backend": str(error)}
    with open(result_path, "w", encoding="utf-8") as file:
        json.dump(result, file)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
)PY";

}  // namespace wv::build

"""Wheel build hook: compile the optional C fast path, ``accel_agent._speedups``.

The agent works without it (every caller has a pure-Python path), so a
machine without a C compiler or Python's headers still gets a working,
pure-Python wheel; the hook says so on stderr. With it, the wheel is tagged
for this interpreter and platform. ``ACCEL_AGENT_BUILD_SPEEDUPS`` changes
that: ``require`` fails the build when the extension cannot be compiled (CI
uses it, so a broken C file cannot pass unnoticed), ``skip`` builds the pure
wheel without trying.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = "agent/accel_agent/_speedups.c"
MODULE = "accel_agent._speedups"
CHOICE_VARIABLE = "ACCEL_AGENT_BUILD_SPEEDUPS"  # try (default), require, skip


class SpeedupsBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"
    _build_dir: str | None = None  # the compiler's temporary folder, removed in finalize()

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        choice = os.environ.get(CHOICE_VARIABLE, "try").strip().lower()
        if choice == "skip":
            return
        if choice not in ("try", "require"):
            raise ValueError(f"{CHOICE_VARIABLE}={choice!r}: use try, require or skip")
        try:
            built = self._compile()
        except Exception as exc:  # noqa: BLE001 - compiler missing, headers missing, ...
            if choice == "require":
                raise
            print(
                f"accel-agent: the C fast path was not built ({type(exc).__name__}: {exc}); "
                "the pure-Python paths serve instead",
                file=sys.stderr,
            )
            return
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        build_data["force_include"][built] = "accel_agent/_speedups" + suffix
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def _compile(self) -> str:
        """Compile the extension with setuptools' compiler settings; the path of the result."""
        from setuptools import Distribution, Extension

        build_dir = self._build_dir = tempfile.mkdtemp(prefix="accel-agent-speedups-")
        extension = Extension(MODULE, sources=[os.path.join(self.root, SOURCE)])
        distribution = Distribution({"name": "accel-agent", "ext_modules": [extension]})
        command = distribution.get_command_obj("build_ext")
        command.build_lib = build_dir
        command.build_temp = os.path.join(build_dir, "temp")
        command.ensure_finalized()
        command.run()
        return command.get_ext_fullpath(MODULE)

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        """Remove the compiler's temporary folder once the wheel holds the extension."""
        if self._build_dir is not None:
            shutil.rmtree(self._build_dir, ignore_errors=True)
            self._build_dir = None

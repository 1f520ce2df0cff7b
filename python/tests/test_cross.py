"""Cross-compiling from Python: export_library of a target whose -mtriple
names another architecture uses <triple>-gcc or the cc given, the
library is that architecture's, and irm.runtime.load refuses it naming
`irm run` (which runs it under qemu: tests/tools/check_cli_cross.py)."""
import os
import platform
import shutil

import pytest

import irm

MOD = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = multiply(%0, %x);
  %1
}
'''

CROSS = "aarch64-linux-gnu-gcc"
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the cases cross-compile from x86-64")


def build():
    return irm.build(irm.ir.parse(MOD), "c -mtriple=aarch64-linux-gnu",
                     executor=irm.Executor("aot"), runtime=irm.Runtime("crt"), mod_name="net")


def elf_machine(path):
    with open(path, "rb") as f:
        return int.from_bytes(f.read(20)[18:20], "little")


def test_missing_cross_compiler_names_the_package(tmp_path, monkeypatch):
    result = build()
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ValueError, match="apt-get install gcc-aarch64-linux-gnu"):
        result.export_library(tmp_path / "net.so", cache=False)
    assert not (tmp_path / "net.so").exists()


@pytest.mark.skipif(not shutil.which(CROSS), reason="needs " + CROSS + " (apt-get install gcc-aarch64-linux-gnu)")
def test_cross_export_and_load_refused(tmp_path):
    result = build()
    # the given compiler runs: a wrapper that notes each call
    log = tmp_path / "calls"
    wrapper = tmp_path / "my-gcc"
    wrapper.write_text("#!/bin/sh\necho x >> '%s'\nexec %s \"$@\"\n" % (log, CROSS))
    os.chmod(wrapper, 0o755)
    result.export_library(tmp_path / "net.so", cache=False, cc=str(wrapper))
    assert log.exists()
    assert elf_machine(tmp_path / "net.so") == 183  # EM_AARCH64
    with pytest.raises(ValueError, match=r"built for aarch64, not this machine's x86_64.*irm run"):
        irm.runtime.load(tmp_path / "net.so")
    # the default: <triple>-gcc
    result.export_library(tmp_path / "net2.so", cache=False)
    assert elf_machine(tmp_path / "net2.so") == 183


@pytest.mark.skipif(not shutil.which(CROSS), reason="needs " + CROSS + " (apt-get install gcc-aarch64-linux-gnu)")
def test_build_cache_keys_on_the_cross_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("IRM_CACHE", raising=False)
    result = build()

    def wrapper(name):
        path = tmp_path / name
        path.write_text("#!/bin/sh\necho x >> '%s'\nexec %s \"$@\"\n" % (tmp_path / (name + ".log"), CROSS))
        os.chmod(path, 0o755)
        return str(path)

    def calls(name):
        log = tmp_path / (name + ".log")
        return len(log.read_text().splitlines()) if log.exists() else 0

    first, second = wrapper("cc-one"), wrapper("cc-two")
    result.export_library(tmp_path / "a.so", cc=first)
    ran = calls("cc-one")
    assert ran > 0
    result.export_library(tmp_path / "b.so", cc=first)  # the same compiler: from the cache
    assert calls("cc-one") == ran  # (its identity is remembered: not even --version again)
    result.export_library(tmp_path / "c.so", cc=second)  # another compiler: compiled anew
    assert calls("cc-two") > 1
    assert elf_machine(tmp_path / "c.so") == 183

"""``python -m eager.distributed.launch``: the mpiexec command it builds, its
errors, and a real run whose exit code comes back (under a timeout)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from eager.distributed import launch
from mpi_run import ROOT, require_mpi


def test_help_names_the_options(capsys):
    with pytest.raises(SystemExit) as stop:
        launch.main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for option in ("--nproc_per_node", "--ips", "--mpiexec", "training_script"):
        assert option in text


def test_missing_mpiexec_is_a_clear_error(monkeypatch, tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text("print('hi')\n")
    monkeypatch.setattr(launch, "find_mpiexec", lambda: None)
    with pytest.raises(SystemExit) as stop:
        launch.main(["--nproc_per_node", "2", str(script)])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "no mpiexec beside" in error and "pip install eager-phi[distributed]" in error
    with pytest.raises(SystemExit):
        launch.main(["--mpiexec", str(tmp_path / "no-such-mpiexec"), str(script)])
    assert "is not an executable" in capsys.readouterr().err


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        launch.main(["--nproc_per_node", "0", str(tmp_path)])
    assert "--nproc_per_node expected a positive number of ranks, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        launch.main([str(tmp_path / "missing.py")])
    assert "missing.py' is not a file" in capsys.readouterr().err


def test_commands_for_one_host_and_several():
    local = launch.build_command("mpiexec", 4, None, "train.py", ["--lr", "0.1"], "mpich")
    assert local == ["mpiexec", "-n", "4", sys.executable, "-u", "train.py", "--lr", "0.1"]
    mpich = launch.build_command("mpiexec", 2, "a, b", "t.py", [], "mpich")
    assert mpich[:7] == ["mpiexec", "-n", "4", "-hosts", "a,b", "-ppn", "2"]
    openmpi = launch.build_command("mpiexec", 2, "a,b", "t.py", [], "openmpi")
    assert openmpi[:5] == ["mpiexec", "-n", "4", "--host", "a:2,b:2"]


def test_a_run_passes_arguments_and_the_exit_code_through(tmp_path):
    require_mpi()
    script = tmp_path / "train.py"
    script.write_text(
        "import sys\n"
        "import eager.distributed as dist\n"
        "dist.init_parallel_env()\n"
        "open(f'rank_{dist.get_rank()}_of_{dist.get_world_size()}', 'w').write(' '.join(sys.argv[1:]))\n"
        "sys.exit(3 if dist.get_rank() == 1 else 0)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "eager.distributed.launch", "--nproc_per_node", "2",
                             str(script), "--epochs", "2"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 3, result.stderr
    for rank in (0, 1):
        assert (tmp_path / f"rank_{rank}_of_2").read_text() == "--epochs 2"

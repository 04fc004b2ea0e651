"""The CG example: PSCR as the preconditioner of a non-separable diffusion problem."""

import pathlib
import runpy

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "cg_preconditioner.py"


def test_pscr_preconditioned_cg(backend):
    example = runpy.run_path(str(EXAMPLE))
    results = {r["method"].split(" ")[0]: r for r in example["run"](n=63, contrast=10.0, tol=1e-8, backend=backend)}
    none, pscr_ = results["none"], results["pscr"]
    assert none["converged"] and pscr_["converged"]
    assert pscr_["residual"] < 1e-8 and none["residual"] < 1e-8
    # the constant-coefficient solve bounds the condition number by the
    # contrast of a: far fewer iterations than without preconditioner
    assert pscr_["iterations"] * 4 < none["iterations"], (pscr_["iterations"], none["iterations"])
    assert pscr_["iterations"] <= 40

"""GPU-only tests (marked `gpu`): run by scripts/gpu_check.py with CORNERTURN_GPU_TESTS=1 on the GPU machine."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import cornerturn

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

DEV = "cuda:0"
DTYPES = [torch.bool, torch.int8, torch.float8_e4m3fn, torch.float16, torch.bfloat16, torch.int32, torch.float32,
          torch.float64, torch.complex64, torch.complex128]


def rand_bits(shape, dtype, gen):
    itemsize = torch.empty((), dtype=dtype).element_size()
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=DEV, generator=gen).bool()
    words = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[min(itemsize, 8)]
    last = shape[-1] * (2 if itemsize == 16 else 1)
    raw = torch.randint(-2**(8 * min(itemsize, 8) - 1), 2**(8 * min(itemsize, 8) - 1) - 1,
                        (*shape[:-1], last), dtype=words, device=DEV, generator=gen)
    return raw.view(dtype)


def as_bytes(t):
    if t.numel() == 0:
        return torch.empty(0, dtype=torch.int8, device=t.device)
    t = t.reshape(-1).clone(memory_format=torch.contiguous_format)  # strides of one, also for one element
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.reshape(-1).view(torch.int8)


def same(a, b) -> bool:
    return a.shape == b.shape and torch.equal(as_bytes(a), as_bytes(b))


@pytest.fixture
def gen():
    return torch.Generator(device=DEV).manual_seed(1234)


def test_random_shapes_dtypes_and_strides(gen):
    rng = np.random.default_rng(7)
    for trial in range(300):
        dtype = DTYPES[trial % len(DTYPES)]
        ndim = int(rng.integers(2, 5))
        shape = [int(rng.choice([1, 2, 3, 7, 31, 33, 64, 65, 127, 1025])) for _ in range(ndim)]
        if ndim > 2:
            shape[0] = int(rng.integers(1, 4))
        steps = [int(rng.choice([1, 1, 2, 3])) for _ in range(ndim)]
        base = rand_bits(tuple(s * k for s, k in zip(shape, steps)), dtype, gen)
        x = base[tuple(slice(None, None, k) for k in steps)]
        if rng.random() < 0.3 and ndim > 2:
            x = x.movedim(0, -1)
        got = cornerturn.transpose(x)
        assert got.is_contiguous() and got.device == x.device and got.dtype == x.dtype
        assert same(got, x.transpose(-1, -2)), (trial, dtype, x.shape, x.stride())


def test_out_and_errors(gen):
    x = rand_bits((300, 500), torch.float32, gen)
    out = torch.empty(500, 300, device=DEV)
    assert cornerturn.transpose(x, out=out) is out and same(out, x.t())
    with pytest.raises(ValueError, match="out: is on cpu but x is on cuda:0"):
        cornerturn.transpose(x, out=torch.empty(500, 300))
    with pytest.raises(ValueError, match="out: is on cuda:0 but x is on cpu"):
        cornerturn.transpose(torch.ones(3, 5), out=torch.empty(5, 3, device=DEV))
    with pytest.raises(ValueError, match="out: overlaps x"):
        cornerturn.transpose(x[:, :300], out=x.reshape(-1)[1000:91000].view(300, 300))


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="cupy not installed")
def test_cupy_arrays_on_the_current_stream():
    import cupy

    x = cupy.random.default_rng(3).standard_normal((1025, 77), dtype=cupy.float32)[::2]
    with cupy.cuda.Stream(non_blocking=True):
        got = cornerturn.transpose(x)
        assert isinstance(got, cupy.ndarray)
        assert bool((got == x.T).all())


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")
def test_jax_gpu_arrays():
    import jax
    import jax.numpy as jnp

    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("JAX sees no GPU")
    x = jax.device_put(jnp.arange(6 * 7 * 9, dtype=jnp.float32).reshape(6, 7, 9), gpus[0])
    got = cornerturn.transpose(x)
    assert isinstance(got, jax.Array)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(x).swapaxes(-1, -2))
    with pytest.raises(ValueError, match="JAX arrays are immutable"):
        cornerturn.transpose(x, out=jnp.zeros((6, 9, 7), jnp.float32))


def test_numba_device_arrays():
    from numba import cuda

    host = np.random.default_rng(5).standard_normal((130, 67)).astype(np.float64)
    got = cornerturn.transpose(cuda.to_device(host))
    np.testing.assert_array_equal(got.copy_to_host(), host.T)


def test_plan_execute_is_captured_in_a_cuda_graph(gen):
    x = rand_bits((4, 513, 257), torch.float16, gen)
    out = torch.empty(4, 257, 513, dtype=torch.float16, device=DEV)
    plan = cornerturn.plan(tuple(x.shape), torch.float16, device="cuda")
    plan.execute(x, out)  # compiles; capture needs no compilation
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    out.fill_(0)
    with torch.cuda.graph(graph):
        plan.execute(x, out)
    x.copy_(rand_bits(tuple(x.shape), torch.float16, gen))
    graph.replay()
    torch.cuda.synchronize()
    assert same(out, x.transpose(-1, -2))


def test_skinny_and_batched_launch(gen):
    for shape in [(16777216 // 16, 8), (8, 16777216 // 16), (2097152 // 16, 96), (4096, 64, 128)]:
        x = rand_bits(shape, torch.float32, gen)
        assert same(cornerturn.transpose(x), x.transpose(-1, -2)), shape


def test_skinny_byte_matrices_take_their_rules(gen):
    """engine.configs.skinny: a few long rows or many short ones of 1- and 2-byte elements, over 1 MiB, each plan
    kind of the rule (rows interleaved, element tiles, words tiles), slices and odd offsets
    included (narrowed at launch), bit-exact."""
    from cornerturn import engine
    from cornerturn.engine.configs import InterleaveConfig, NarrowConfig, skinny
    from cornerturn.engine.runtime import narrowed_for
    from cornerturn.problem import canonical

    cases = [((3, 700001), torch.uint8), ((6, 500001), torch.uint8), ((2, 1048579), torch.int8),
             ((5, 400003), torch.float16),
             ((7, 300007), torch.bfloat16), ((2, 3, 350001), torch.uint8), ((6, 2, 350002), torch.int8),
             ((700001, 3), torch.uint8), ((500009, 7), torch.int16), ((300007, 29), torch.uint8),
             ((4, 2, 524288), torch.float8_e4m3fn), ((4, 600001), torch.uint8), ((2, 3, 400002), torch.int16),
             ((3, 100003), torch.complex128), ((100003, 7), torch.complex128), ((9, 300001), torch.uint8),
             ((31, 100003), torch.int8), ((4, 12, 100001), torch.float8_e4m3fn)]
    kinds = set()
    for shape, dtype in cases:
        x = rand_bits(shape, dtype, gen)
        itemsize = x.element_size()
        problem = canonical(tuple(x.shape), tuple(s * itemsize for s in x.stride()), itemsize)
        rule = skinny(problem)
        assert rule is not None, shape
        plan = engine.choose(problem, DEV)
        assert plan.config == rule[1] and plan.reason.startswith("skinny"), (shape, plan.name)
        kinds.add(type(plan.config).__name__)
        assert same(cornerturn.transpose(x), x.transpose(-1, -2)), shape
        flat = x.reshape(-1)
        y = flat[1:1 + flat.numel() - shape[-1]].reshape(-1, shape[-1])  # one element on: starts inside a word
        assert same(cornerturn.transpose(y), y.transpose(-1, -2)), (shape, "offset")
        y_problem = canonical(tuple(y.shape), (shape[-1] * itemsize, itemsize), itemsize)
        y_rule = skinny(y_problem)
        if itemsize == 1 and y_rule is not None and not isinstance(y_rule[1], (NarrowConfig, InterleaveConfig)):
            moved = narrowed_for(engine.choose(y_problem, DEV), y.data_ptr(), y.data_ptr(), 0)
            assert moved.reason.startswith("skinny"), (shape, moved.name, moved.reason)  # the rule's tile kept
    # narrow rows are interleaved since 2026-11-27, short rows of bytes split since 2026-11-29
    assert kinds == {"InterleaveConfig", "SplitConfig", "TileConfig", "WordsConfig"}


def test_short_rows_batches_on_the_gpu(gen):
    """Batches whose rows are shorter than the interleave's programs (engine.configs.short_rows): gathered rows of
    6-88 bytes in bytes and 2-byte words, programs of 64 words (rows of 174 bytes, outputs shifted into place; 2-byte
    rows of 187) and of 256 (rows of 1240 bytes); the planner's plan is the rule's, bit for bit against torch, and from
    one element on (a start inside a word) too."""
    from cornerturn import engine
    from cornerturn.engine.configs import skinny
    from cornerturn.problem import canonical

    cases = [((200000, 2, 12), torch.int16, "gather"), ((60000, 16, 36), torch.uint8, "gather"),
             ((30000, 4, 22), torch.float8_e4m3fn, "gather"), ((3000, 29, 174), torch.uint8, "interleave64"),
             ((3000, 10, 187), torch.bfloat16, "interleave64"), ((2000, 3, 1240), torch.int8, "interleave256")]
    for shape, dtype, name in cases:
        x = rand_bits(shape, dtype, gen)
        itemsize = x.element_size()
        problem = canonical(tuple(x.shape), tuple(s * itemsize for s in x.stride()), itemsize)
        plan = engine.choose(problem, DEV)
        assert plan.config == skinny(problem)[1] and plan.config.name.startswith(name), (shape, plan.name)
        assert same(cornerturn.transpose(x), x.transpose(-1, -2)), shape
        y = x.reshape(-1)[1:1 + x.numel() - shape[-1] * shape[-2]].reshape(-1, *shape[1:])
        assert same(cornerturn.transpose(y), y.transpose(-1, -2)), (shape, "offset")


def test_batches_of_small_blocks_permuted_on_the_gpu(gen):
    """Batches of small blocks permuted inside (engine.permute.GATHER_BLOCK_BYTES) take permute_gather, bit for bit
    against torch, and from one element past a 16-byte boundary (a narrower word) too."""
    from cornerturn import engine
    from cornerturn.problem import canonical_permutation

    cases = [((26, 83, 8, 47, 5, 15), (3, 1, 0, 2, 5, 4), torch.float32),
             ((22, 238, 8, 6, 38, 4), (3, 2, 0, 1, 5, 4), torch.int16),
             ((330, 187, 11, 2, 2, 2), (1, 0, 2, 4, 5, 3), torch.complex128)]
    for shape, axes, dtype in cases:
        x = rand_bits(shape, dtype, gen)
        size = x.element_size()
        perm = canonical_permutation(shape, tuple(s * size for s in x.stride()), size, axes)
        assert engine.choose(perm, DEV).config.name.startswith("pgather"), shape
        assert same(cornerturn.permute_dims(x, axes), x.permute(axes)), shape
        y = x.reshape(-1)[1:1 + x.numel() - x.stride(0)].reshape(-1, *shape[1:])
        assert same(cornerturn.permute_dims(y, axes), y.permute(axes)), (shape, "offset")


def test_square_in_place_on_the_gpu(gen):
    for dtype in (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128):
        for shape in [(2, 2), (63, 63), (3, 129, 129), (1000, 1000), (2, 300, 300), (3, 130, 130)]:
            x = rand_bits(shape, dtype, gen)
            want = x.transpose(-1, -2).contiguous()
            assert cornerturn.transpose_(x) is x
            assert same(x, want), (dtype, shape)
    v = torch.arange(6.0, device=DEV).view(1, 6)
    assert cornerturn.transpose_(v).shape == (6, 1)


def test_rectangular_in_place_on_the_gpu(gen):
    from cornerturn.engine import rectangular

    by_size = rectangular.column_options
    small_bands = [rectangular.ColumnOptions(pipelined=True, band_bytes=1 << 16, ring=2, group=1),  # ring wraps
                   rectangular.ColumnOptions(pipelined=True, band_bytes=1 << 18, ring=3, lag=2, group=3),
                   rectangular.ColumnOptions(pipelined=False, band_bytes=1 << 18)]
    shapes = [(3, 4), (97, 89), (2, 300, 500), (4096, 1025), (1025, 4096), (3000, 4100), (16384, 3), (3, 16384)]
    try:
        for dtype in (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128):
            for shape in shapes:
                # through scratch, the three passes with the element size's settings, then with small bands
                for small, columns in [(16 << 20, None), (0, None), *((0, o) for o in small_bands)]:
                    rectangular.SMALL_BYTES = small
                    rectangular.column_options = by_size if columns is None else (lambda _, o=columns: o)
                    x = rand_bits(shape, dtype, gen)
                    want = x.transpose(-1, -2).contiguous()
                    y = cornerturn.transpose_(x)
                    assert y.data_ptr() == x.data_ptr() and y.shape == want.shape
                    assert same(y, want), (dtype, shape, small, columns)
        # the block, grid, peeled and trimmed forms: whole cycles held, then cycles cut into saved segments with
        # chunks in several parts and rows restrided in small items, and the three passes on the same shapes
        rectangular.SMALL_BYTES, rectangular.column_options = 0, by_size
        for dtype in (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128):
            # divisible (block form), then an edge of a few rows or columns (peeled form; a square front last)
            # sides sharing a factor of 512 or 1024 (grid form), and one column or row off it (the peeled form;
            # with edges of 64 KiB at most, trimmed to a grid); both sides prime (with edges of 64 KiB at most,
            # 1- to 4-byte elements trimmed on both sides to 3000 x 2000)
            for shape in [(4096, 1024), (1024, 3072), (2, 1536, 512), (8192, 2048), (512, 2560), (4099, 1024),
                          (1024, 4097), (2, 1600, 513), (1536, 1024), (3072, 2048), (2048, 3072), (2, 1536, 2560),
                          (4096, 3073), (3073, 4096), (2, 2048, 1537), (3001, 2003), (2003, 3001), (2, 3001, 2003)]:
                for blocks in [rectangular.BlockOptions(), rectangular.BlockOptions(segments=10**6, block=64,
                                                                                    restride_bytes=256),
                               rectangular.BlockOptions(saved_bytes=1 << 16),
                               rectangular.BlockOptions(enabled=False)]:
                    rectangular.BLOCK_OPTIONS = blocks
                    x = rand_bits(shape, dtype, gen)
                    want = x.transpose(-1, -2).contiguous()
                    y = cornerturn.transpose_(x)
                    assert y.data_ptr() == x.data_ptr() and same(y, want), (dtype, shape, blocks)
    finally:
        rectangular.SMALL_BYTES = 16 << 20
        rectangular.column_options = by_size
        rectangular.BLOCK_OPTIONS = rectangular.BlockOptions()


def test_transpose_into_a_column_block(gen):
    """The sharded transpose's own block: written into its columns of a wider output, nothing else touched."""
    from cornerturn.distributed.pieces import transpose_into

    for dtype in DTYPES:
        # the fifth case's addresses are one element off the natural words of 1- and 2-byte elements: narrower
        # words, with the output's row stride kept; the last two have odd input rows (bytes: the funnel kernel
        # into output rows of whole words; into rows an odd length apart the byte tiles)
        for rows, cols, lead, skip in [(300, 500, 64, 40), (4096, 1000, 512, 4), (7, 3000, 16, 5), (1000, 4, 8, 0),
                                       (300, 500, 1, 1), (4096, 4097, 64, 4), (4097, 4097, 64, 4)]:
            x = rand_bits((rows, cols + skip), dtype, gen)[:, skip:]
            wide = rand_bits((cols, lead + rows + 24), dtype, gen)
            before = wide.clone()
            transpose_into(x, wide[:, lead:lead + rows])
            torch.cuda.synchronize()
            assert same(wide[:, lead:lead + rows], x.t()), (dtype, rows, cols)
            assert same(wide[:, :lead], before[:, :lead]) and same(wide[:, lead + rows:], before[:, lead + rows:])


def _fuzz_out(kind, x, base, dtype, want_shape):
    """An `out` of one kind for the fuzz test: None, matching, of another shape or dtype, overlapping x, on the host,
    or strided."""
    if kind == "none":
        return None
    if kind == "match":
        return torch.empty(want_shape, dtype=dtype, device=DEV)
    if kind == "shape":
        return torch.empty((*want_shape, 2), dtype=dtype, device=DEV)
    if kind == "dtype":
        return torch.empty(want_shape, dtype=torch.int16 if dtype != torch.int16 else torch.int8, device=DEV)
    if kind == "overlap":
        return base.reshape(-1)[:x.numel()].view(want_shape) if base.numel() >= x.numel() else None
    if kind == "host":
        return torch.empty(want_shape, dtype=dtype)
    wide = (*want_shape[:-1], 2 * want_shape[-1]) if want_shape else (0,)
    return torch.empty(wide, dtype=dtype, device=DEV)[..., ::2]


def test_fuzzed_calls_on_cuda_tensors(gen):
    """2,000 random calls on CUDA tensors (dtypes, shapes, strides, offsets, out of every kind): each bit-exact
    against torch, or cornerturn's own error with x and out unchanged."""
    import traceback

    rng = np.random.default_rng(20261124)
    outcomes = {"ok": 0, "error": 0}
    kinds = ("none", "match", "shape", "dtype", "overlap", "host", "strided")
    for trial in range(2000):
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        ndim = int(rng.integers(1, 5))
        shape = [int(rng.integers(0, 40)) for _ in range(ndim)]
        steps = [int(rng.choice([1, 1, 2])) for _ in range(ndim)]
        base = rand_bits(tuple(max(1, s * k) + 1 for s, k in zip(shape, steps)), dtype, gen)
        x = base[tuple(slice(1, 1 + s * k, k) for s, k in zip(shape, steps))]  # starts one element in
        kind = kinds[trial % len(kinds)]
        want_shape = (*x.shape[:-2], x.shape[-1], x.shape[-2]) if x.dim() >= 2 else tuple(x.shape)
        out = _fuzz_out(kind, x, base, dtype, want_shape)
        x_before, out_before = as_bytes(x).clone(), None if out is None else as_bytes(out).clone()
        try:
            got = cornerturn.transpose(x, out=out)
        except (TypeError, ValueError, RuntimeError) as exc:
            assert "cornerturn" in traceback.extract_tb(exc.__traceback__)[-1].filename, repr(exc)
            assert str(exc).split(":")[0] in ("x", "out"), str(exc)
            assert torch.equal(as_bytes(x), x_before)
            assert out is None or torch.equal(as_bytes(out), out_before), (trial, kind)
            outcomes["error"] += 1
            continue
        assert x.dim() >= 2 and (out is None or got is out)
        assert same(got, x.transpose(-1, -2)), (trial, dtype, tuple(x.shape), x.stride(), kind)
        outcomes["ok"] += 1
    assert outcomes["ok"] > 300 and outcomes["error"] > 300, outcomes  # both ways taken often


def test_autograd_and_torch_compile_on_cuda(gen):
    """Gradients through transpose; torch.compile(fullgraph=True) with inductor compiles a function that calls it
    with no graph break and runs it at the eager call's speed (calls back to back, best of three rounds of 50)."""
    x = torch.randn(33, 65, dtype=torch.float64, device=DEV, requires_grad=True)
    assert torch.autograd.gradcheck(cornerturn.transpose, (x,))
    a = rand_bits((16384, 8192), torch.float32, gen)  # a kernel longer than torch.compile's host time a call

    def f(t):
        return cornerturn.transpose(t)

    compiled = torch.compile(f, fullgraph=True)
    assert same(compiled(a), a.t())
    from cornerturn.engine.timing import time_cuda, time_wall

    # back to back, as a program calls it (each call's host work then overlaps the GPU's), in alternating rounds
    eager = min(time_wall(lambda: f(a), calls=50) for _ in range(3))
    traced = min(time_wall(lambda: compiled(a), calls=50) for _ in range(3))
    one_call = time_cuda(lambda: f(a), repeats=10).median
    print(f"per call back to back: eager {eager * 1e6:.1f} us, compiled {traced * 1e6:.1f} us; "
          f"one eager call after an L2 flush {one_call * 1e6:.1f} us")
    assert traced < 1.1 * eager
    graphed = torch.compile(f, fullgraph=True, mode="reduce-overhead")  # CUDA graphs under torch.compile
    for _ in range(3):
        assert same(graphed(a), a.t())


@pytest.mark.parametrize("shape, axes", [((64, 3, 40, 50), (0, 2, 3, 1)), ((5, 6, 7, 8), (3, 1, 0, 2)),
                                         ((4, 9, 33, 16), (0, 2, 1, 3)), ((2, 3, 2, 3, 2, 3), (5, 3, 1, 4, 0, 2)),
                                         ((30, 1, 17), (2, 1, 0)), ((3, 20, 10, 6), (0, 3, 2, 1)),
                                         ((3, 2, 1025), (1, 0, 2))], ids=str)
def test_permute_dims_on_the_gpu(shape, axes, gen):
    for dtype in (torch.int8, torch.bfloat16, torch.float32, torch.complex128):
        x = rand_bits(shape, dtype, gen)
        for view in (x, x[::2], x[..., 1:]):
            got = cornerturn.permute_dims(view, axes)
            assert got.is_contiguous() and torch.equal(as_bytes(got), as_bytes(view.permute(axes)))
    x = rand_bits(shape, torch.float32, gen).requires_grad_()
    weights = torch.randn([shape[a] for a in axes], device=DEV)
    (cornerturn.permute_dims(x, axes) * weights).sum().backward()
    inverse = [axes.index(k) for k in range(len(axes))]
    assert torch.equal(x.grad, weights.permute(inverse))


def test_permutation_autotune_on_the_gpu(gen, tmp_path, monkeypatch):
    """autotune measures a permutation's candidates (the planner's plan, plain and packed tiles), keeps the fastest in
    the cache, and the plan it makes then moves every element."""
    from cornerturn.engine import permute, tune

    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(tmp_path))
    shape, axes = (30, 40, 51, 10, 7, 5), (3, 0, 2, 1, 5, 4)  # 7 x 5 bytes turned in each block: packing changes A
    planned = cornerturn.plan(shape, torch.uint8, device=DEV, axes=axes, autotune=True)
    entries = tune.load(tune.cache_file(torch.cuda.get_device_name(0)))
    (entry,) = entries.values()
    measured = [t for t in entry["timings"] if t["median_s"] is not None]
    assert len(measured) == len(permute.candidates(planned.problem)) >= 4
    assert any(t["config"].get("packed") for t in measured) and entry["best"] in [t["config"] for t in measured]
    assert planned.reason.startswith("autotuned")
    x = rand_bits(shape, torch.uint8, gen)
    out = torch.empty([shape[a] for a in axes], dtype=torch.uint8, device=DEV)
    planned.execute(x, out)
    assert torch.equal(out, x.permute(axes).contiguous())

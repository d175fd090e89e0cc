"""The lab: the classic CUDA transpose kernels in numba-cuda, a registry of them, and a runner that checks and
times them on the GPU (or checks them in numba-cuda's simulator without one).

Importing this package imports no numba.cuda; `registry.build` does, when a kernel is first compiled.
"""

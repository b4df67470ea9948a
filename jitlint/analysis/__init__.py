"""Static analysis of JAX code: names, traced functions, traced values."""

"""Wrong-but-plausible and alternative-correct answers for solutions/13_pallas_kernels."""

WRONG = {
    "task 1: grid rounded down (the tail tiles are never computed)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        h = x_ref[...].astype(jnp.float32) * scale_ref[...] + shift_ref[...]
        o_ref[...] = jax.nn.silu(h).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // br, cols // bc),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 1: every program gets the whole scale and shift vectors": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        j = pl.program_id(1)
        s = scale_ref[pl.ds(j * bc, bc)].astype(jnp.float32)
        t = shift_ref[pl.ds(j * bc, bc)].astype(jnp.float32)
        o_ref[...] = jax.nn.silu(x_ref[...].astype(jnp.float32) * s + t).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    whole = pl.BlockSpec((cols,), lambda i, j: (0,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, whole, whole],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 1: pads x to whole tiles outside the kernel (an extra pass over memory)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    pr, pc = pl.cdiv(rows, br) * br, pl.cdiv(cols, bc) * bc
    xp = jnp.pad(x, ((0, pr - rows), (0, pc - cols)))
    sp, tp = jnp.pad(scale, (0, pc - cols)), jnp.pad(shift, (0, pc - cols))

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        h = x_ref[...].astype(jnp.float32) * scale_ref[...].astype(jnp.float32)
        o_ref[...] = jax.nn.silu(h + shift_ref[...].astype(jnp.float32)).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((pr, pc), x.dtype),
        grid=(pr // br, pc // bc),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(xp, sp, tp)
    return out[:rows, :cols]
""",
    },
    "task 1: the affine part in jnp, only the SiLU in the kernel": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    h = x.astype(jnp.float32) * scale.astype(jnp.float32) + shift.astype(jnp.float32)

    def kernel(h_ref, o_ref):
        o_ref[...] = jax.nn.silu(h_ref[...]).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile],
        out_specs=tile,
        interpret=True,
    )(h)
""",
    },
    "task 2: a block exactly as wide as the row (not a power of two)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape

    def kernel(x_ref, o_ref):
        v = x_ref[...]
        m = jnp.max(v, axis=1)
        o_ref[...] = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 2: power-of-two block, but the padded columns are not masked": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        v = x_ref[...]
        m = jnp.max(v, axis=1)
        o_ref[...] = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 2: padded columns masked with 0 instead of -inf": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        inside = jnp.arange(width)[None, :] < cols
        v = jnp.where(inside, x_ref[...], 0.0)
        m = jnp.max(v, axis=1)
        o_ref[...] = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 2: no maximum subtracted (exp overflows)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        inside = jnp.arange(width)[None, :] < cols
        v = jnp.where(inside, x_ref[...], -jnp.inf)
        o_ref[...] = jnp.log(jnp.sum(jnp.exp(v), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 2: grid rounded down (the last rows are never computed)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        inside = jnp.arange(width)[None, :] < cols
        v = jnp.where(inside, x_ref[...], -jnp.inf)
        m = jnp.max(v, axis=1)
        o_ref[...] = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(max(rows // block_rows, 1),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 3: K in the grid, every k step adding into the output tile": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]
    steps = k // bk

    def kernel(x_ref, w_ref, b_ref, o_ref):
        s = pl.program_id(2)

        @pl.when(s == 0)
        def _():
            o_ref[...] = jnp.zeros(o_ref.shape, jnp.float32)

        o_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)

        @pl.when(s == steps - 1)
        def _():
            o_ref[...] = jnp.maximum(o_ref[...] + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn, steps),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, s: (i, s)),
            pl.BlockSpec((bk, bn), lambda i, j, s: (s, j)),
            pl.BlockSpec((bn,), lambda i, j, s: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, s: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 3: a bfloat16 accumulator": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        def step(s, acc):
            xs = x_ref[:, pl.ds(s * bk, bk)]
            ws = w_ref[pl.ds(s * bk, bk), :]
            return acc + jnp.dot(xs, ws)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.bfloat16))
        o_ref[...] = jnp.maximum(acc.astype(jnp.float32) + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 3: grid over M rounded down (the last rows are never computed)": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        def step(s, acc):
            xs = x_ref[:, pl.ds(s * bk, bk)]
            ws = w_ref[pl.ds(s * bk, bk), :]
            return acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        o_ref[...] = jnp.maximum(acc + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(max(m // bm, 1), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 3: the ReLU applied to every partial sum": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        def step(s, acc):
            xs = x_ref[:, pl.ds(s * bk, bk)]
            ws = w_ref[pl.ds(s * bk, bk), :]
            return jnp.maximum(acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32), 0.0)

        acc = lax.fori_loop(0, k // bk, step, jnp.broadcast_to(b_ref[...], (bm, bn)))
        o_ref[...] = acc

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 3: one product over the whole K band, no loop over K": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        acc = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
        o_ref[...] = jnp.maximum(acc + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 1: computed in x's dtype (bfloat16 arithmetic inside the kernel)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):  # masked, but in bfloat16 for bf16 x
        r = pl.program_id(0) * br + jnp.arange(br)[:, None]
        c = pl.program_id(1) * bc + jnp.arange(bc)
        inside, columns = (r < rows) & (c < cols)[None, :], c < cols
        h = pltriton.load(x_ref, mask=inside) * pltriton.load(scale_ref, mask=columns)
        h = h + pltriton.load(shift_ref, mask=columns)
        pltriton.store(o_ref, jax.nn.silu(h), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 3: bfloat16 tile products, only the running sum in float32": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        def step(s, acc):
            xs = x_ref[:, pl.ds(s * bk, bk)]
            ws = w_ref[pl.ds(s * bk, bk), :]
            return acc + jnp.dot(xs, ws).astype(jnp.float32)  # the product rounded to bf16

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        o_ref[...] = jnp.maximum(acc + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 1: no masks (interpret mode drops the tail tiles' writes past x)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        h = x_ref[...].astype(jnp.float32) * scale_ref[...].astype(jnp.float32)
        h = h + shift_ref[...].astype(jnp.float32)
        o_ref[...] = jax.nn.silu(h).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 2: padded columns replaced with jnp.where after an unmasked load, unmasked store": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        inside = jnp.arange(width)[None, :] < cols
        v = jnp.where(inside, x_ref[...], -jnp.inf)
        m = jnp.max(v, axis=1)
        o_ref[...] = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 2: masked load, unmasked store (the last rows write past the output)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    n_rows, n_cols = x.shape
    block = (block_rows, pl.next_power_of_2(n_cols))

    def kernel(x_ref, o_ref):
        cols = lax.broadcasted_iota(jnp.int32, block, 1)
        v = pltriton.load(x_ref, mask=cols < n_cols, other=-jnp.inf)
        o_ref[...] = jax.nn.logsumexp(v, axis=-1)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((n_rows,), jnp.float32),
        grid=((n_rows + block_rows - 1) // block_rows,),
        in_specs=[pl.BlockSpec(block, lambda r: (r, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda r: (r,)),
        interpret=True,
    )(x)
""",
    },
    "task 3: x's band and the output tile unmasked (the last row of tiles reaches past M)": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        def step(s, acc):
            xs = x_ref[:, pl.ds(s * bk, bk)]
            ws = w_ref[pl.ds(s * bk, bk), :]
            return acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        o_ref[...] = jnp.maximum(acc + b_ref[...], 0.0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 1: masks one row and one column too far (<= instead of <)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r <= rows) & (c <= cols)  # the part of the tile that lies in x
        columns = pl.program_id(1) * bc + jnp.arange(bc) <= cols
        h = pltriton.load(x_ref, mask=inside, other=0).astype(jnp.float32)
        h = h * pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
        h = h + pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)
        pltriton.store(o_ref, jax.nn.silu(h).astype(o_ref.dtype), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)

""",
    },
    "task 1: computed with jnp outside, the kernel only copies the result in (masked)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    h = jax.nn.silu(x.astype(jnp.float32) * scale + shift).astype(x.dtype)  # outside the kernel

    def kernel(h_ref, scale_ref, shift_ref, o_ref):
        r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r < rows) & (c < cols)
        columns = pl.program_id(1) * bc + jnp.arange(bc) < cols
        pltriton.load(scale_ref, mask=columns, other=0)
        pltriton.load(shift_ref, mask=columns, other=0)
        pltriton.store(o_ref, pltriton.load(h_ref, mask=inside, other=0), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(h, scale, shift)
""",
    },
    "task 2: rows masked one too far (<= instead of <)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)  # rows of this group
        inside = (r[:, None] <= rows) & (jnp.arange(width)[None, :] < cols)  # entries that exist
        v = pltriton.load(x_ref, mask=inside, other=-jnp.inf)  # exp(-inf) = 0 adds nothing
        m = jnp.max(v, axis=1)
        m = jnp.where(m == -jnp.inf, 0.0, m)  # a row of -inf (or past the end): no -inf - -inf
        lse = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))
        pltriton.store(o_ref, lse, mask=r <= rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)

""",
    },
    "task 2: the log-sum-exp computed outside, passed in and copied by the kernel": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)
    lse = jax.nn.logsumexp(x, axis=1)  # computed by XLA, outside the kernel

    def kernel(x_ref, lse_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)
        inside = (r[:, None] < rows) & (jnp.arange(width)[None, :] < cols)
        pltriton.load(x_ref, mask=inside, other=-jnp.inf)  # loaded, unused
        pltriton.store(o_ref, pltriton.load(lse_ref, mask=r < rows, other=0.0), mask=r < rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[
            pl.BlockSpec((block_rows, width), lambda i: (i, 0)),
            pl.BlockSpec((block_rows,), lambda i: (i,)),
        ],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x, lse)
""",
    },
    "task 3: rows masked one too far (<= instead of <)": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        rows = (pl.program_id(0) * bm + jnp.arange(bm) <= m)[:, None]  # rows that exist

        def step(s, acc):
            xs = pltriton.load(x_ref.at[:, pl.ds(s * bk, bk)], mask=rows, other=0)  # (bm, bk)
            ws = w_ref[pl.ds(s * bk, bk), :]  # (bk, bn): K and N divide, no mask
            return acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        pltriton.store(o_ref, jnp.maximum(acc + b_ref[...], 0.0), mask=rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)

""",
    },
    "each row shifted by its mean, not its maximum": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)
        inside = (r[:, None] < rows) & (jnp.arange(width)[None, :] < cols)
        v = pltriton.load(x_ref, mask=inside, other=-jnp.inf)  # exp(-inf) = 0 adds nothing
        # shift each row by its mean, so that exp works near 0 whatever the row's level
        centre = jnp.sum(jnp.where(inside, v, 0.0), axis=1) / cols
        lse = centre + jnp.log(jnp.sum(jnp.exp(v - centre[:, None]), axis=1))
        pltriton.store(o_ref, lse, mask=r < rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "the row maximum clipped at 0: rows far below zero underflow": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)
        inside = (r[:, None] < rows) & (jnp.arange(width)[None, :] < cols)
        v = pltriton.load(x_ref, mask=inside, other=-jnp.inf)
        # the row maximum, but never below 0: a row past the end (all -inf) gives 0, not NaN
        m = jnp.maximum(jnp.max(v, axis=1), 0.0)
        lse = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))
        pltriton.store(o_ref, lse, mask=r < rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "sigmoid as exp(h) / (1 + exp(h)): NaN where exp overflows": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r < rows) & (c < cols)
        columns = pl.program_id(1) * bc + jnp.arange(bc) < cols
        h = pltriton.load(x_ref, mask=inside, other=0).astype(jnp.float32)
        h = h * pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
        h = h + pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)
        e = jnp.exp(h)
        out = h * e / (1.0 + e)  # silu(h) = h * sigmoid(h), sigmoid(h) = e^h / (1 + e^h)
        pltriton.store(o_ref, out.astype(o_ref.dtype), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "rows one at a time through x_ref.at[i], masked to the columns only": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        columns = pl.program_id(1) * bc + jnp.arange(bc) < cols  # the part of a row inside x
        s = pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
        b = pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)

        def one_row(i, carry):  # the tile, one row at a time
            h = pltriton.load(x_ref.at[i], mask=columns, other=0).astype(jnp.float32)
            h = h * s + b
            pltriton.store(o_ref.at[i], jax.nn.silu(h).astype(o_ref.dtype), mask=columns)
            return carry

        lax.fori_loop(0, br, one_row, 0)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "row_logsumexp: rows one at a time through x_ref.at[i], masked to the columns only": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        columns = jnp.arange(width) < cols  # the padded columns change nothing
        here = pl.program_id(0) * block_rows + jnp.arange(block_rows)

        def one_row(i, out):  # each program handles block_rows whole rows, one at a time
            v = pltriton.load(x_ref.at[i], mask=columns, other=-jnp.inf)  # (width,)
            m = jnp.max(v)
            m = jnp.where(m == -jnp.inf, 0.0, m)
            lse = m + jnp.log(jnp.sum(jnp.exp(v - m)))
            return jnp.where(jnp.arange(block_rows) == i, lse, out)

        out = lax.fori_loop(0, block_rows, one_row, jnp.zeros((block_rows,), jnp.float32))
        pltriton.store(o_ref, out, mask=here < rows)  # the last group reaches past the array

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "masks from the remainder: a size that divides gets a mask of 0 rows": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    tail_rows, tail_cols = rows % br, cols % bc  # how much of the last tile lies inside x

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        i, j = pl.program_id(0), pl.program_id(1)
        # every tile is whole except the last one along each axis, which holds the remainder
        n_rows = jnp.where(i == pl.num_programs(0) - 1, jnp.int32(tail_rows), jnp.int32(br))
        n_cols = jnp.where(j == pl.num_programs(1) - 1, jnp.int32(tail_cols), jnp.int32(bc))
        r = lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r < n_rows) & (c < n_cols)
        columns = jnp.arange(bc) < n_cols
        h = pltriton.load(x_ref, mask=inside, other=0).astype(jnp.float32)
        h = h * pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
        h = h + pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)
        pltriton.store(o_ref, jax.nn.silu(h).astype(o_ref.dtype), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 1: x converted to float32 before the kernel and the result back after it": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    # work in float32: convert the inputs once, before the kernel, and the result after it
    x32, s32, t32 = (a.astype(jnp.float32) for a in (x, scale, shift))

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r < rows) & (c < cols)
        columns = pl.program_id(1) * bc + jnp.arange(bc) < cols
        h = pltriton.load(x_ref, mask=inside, other=0)
        h = h * pltriton.load(scale_ref, mask=columns, other=0)
        h = h + pltriton.load(shift_ref, mask=columns, other=0)
        pltriton.store(o_ref, jax.nn.silu(h), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x32, s32, t32)
    return out.astype(x.dtype)
""",
    },
    "task 3: x and w converted to float32 before the kernel": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]
    x, w = x.astype(jnp.float32), w.astype(jnp.float32)  # float32 operands, float32 products

    def kernel(x_ref, w_ref, b_ref, o_ref):
        rows = (pl.program_id(0) * bm + jnp.arange(bm) < m)[:, None]

        def step(s, acc):
            xs = pltriton.load(x_ref.at[:, pl.ds(s * bk, bk)], mask=rows, other=0)
            ws = w_ref[pl.ds(s * bk, bk), :]
            return acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        pltriton.store(o_ref, jnp.maximum(acc + b_ref[...], 0.0), mask=rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 1: h rounded to x's dtype between the affine step and SiLU": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
        c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
        inside = (r < rows) & (c < cols)
        columns = pl.program_id(1) * bc + jnp.arange(bc) < cols
        xv = pltriton.load(x_ref, mask=inside, other=0).astype(jnp.float32)
        sv = pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
        tv = pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)
        # the pre-activation is stored in the model's dtype, as a layer's output would be
        h = (xv * sv + tv).astype(o_ref.dtype).astype(jnp.float32)
        pltriton.store(o_ref, (h * jax.nn.sigmoid(h)).astype(o_ref.dtype), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 2: no guard for a row maximum of -inf: a row of -inf gives NaN": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)
        inside = (r[:, None] < rows) & (jnp.arange(width)[None, :] < cols)
        v = pltriton.load(x_ref, mask=inside, other=-jnp.inf)
        m = jnp.max(v, axis=1)  # no guard: a row of -inf gives -inf - -inf = NaN
        lse = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))
        pltriton.store(o_ref, lse, mask=r < rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    "task 1: masks only when the rows do not divide into tiles (columns overrun unmasked)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block
    ragged = rows % br != 0  # the last row of tiles reaches past the array

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        if ragged:
            r = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bc), 0)
            c = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
            inside = (r < rows) & (c < cols)
            columns = pl.program_id(1) * bc + jnp.arange(bc) < cols
            h = pltriton.load(x_ref, mask=inside, other=0).astype(jnp.float32)
            h = h * pltriton.load(scale_ref, mask=columns, other=0).astype(jnp.float32)
            h = h + pltriton.load(shift_ref, mask=columns, other=0).astype(jnp.float32)
            pltriton.store(o_ref, jax.nn.silu(h).astype(o_ref.dtype), mask=inside)
        else:  # whole tiles: plain loads and stores
            h = x_ref[...].astype(jnp.float32) * scale_ref[...].astype(jnp.float32)
            h = h + shift_ref[...].astype(jnp.float32)
            o_ref[...] = jax.nn.silu(h).astype(o_ref.dtype)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 2: a plain load when cols is a power of two (the last group's rows unmasked)": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)

    def kernel(x_ref, o_ref):
        r = pl.program_id(0) * block_rows + jnp.arange(block_rows)  # rows of this group
        if width == cols:
            # the row is already a power of two wide: no padding, nothing to mask on load
            v = x_ref[...]
        else:
            inside = (r[:, None] < rows) & (jnp.arange(width)[None, :] < cols)
            v = pltriton.load(x_ref, mask=inside, other=-jnp.inf)
        m = jnp.max(v, axis=1)
        m = jnp.where(jnp.isfinite(m), m, 0.0)
        lse = m + jnp.log(jnp.sum(jnp.exp(v - m[:, None]), axis=1))
        pltriton.store(o_ref, lse, mask=r < rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, width), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    # held-out round 33: the hidden tests checked the numbers of a call with arrays and the
    # program of a traced one; both now come from one trace
    "task 1, a cheat: a flawed kernel when traced, NumPy float64 when called with arrays": {
        "task1-solution": """
def _as_kernel_c(x_ref, s_ref, t_ref, o_ref, *, rows, cols):
    br, bc = x_ref.shape
    r = pl.program_id(0) * br + jnp.arange(br)
    c = pl.program_id(1) * bc + jnp.arange(bc)
    cmask = c < cols
    mask = (r < rows)[:, None] & cmask[None, :]
    f32 = jnp.float32
    h = (pltriton.load(x_ref, mask=mask, other=0).astype(f32)
         * pltriton.load(s_ref, mask=cmask, other=0).astype(f32)
         + pltriton.load(t_ref, mask=cmask, other=0).astype(f32))
    h = h.astype(x_ref.dtype).astype(f32)  # second rounding in the middle
    e = jnp.exp(h)
    y = h * (e / (1.0 + e))  # overflows to NaN for h in the hundreds
    pltriton.store(o_ref, y.astype(o_ref.dtype), mask=mask)


def affine_silu(x, scale, shift, block):
    if not isinstance(x, jax.core.Tracer):  # concrete call: the numbers are being checked
        f64 = np.float64
        h = np.asarray(x, f64) * np.asarray(scale, f64) + np.asarray(shift, f64)
        y = h / (1.0 + np.exp(-np.clip(h, -700, 700)))
        return jnp.asarray(y.astype(np.float32)).astype(x.dtype)
    br, bc = block
    rows, cols = x.shape
    return pl.pallas_call(
        partial(_as_kernel_c, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows, cols), x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j)),
                  pl.BlockSpec((bc,), lambda i, j: (j,)),
                  pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        interpret=True,
    )(x, scale, shift)
""",
    },
    # held-out round 33: the hidden tests checked the numbers of a call with arrays and the
    # program of a traced one; both now come from one trace
    "task 2, a cheat: a naive log(sum(exp)) kernel when traced, NumPy float64 with arrays": {
        "task2-solution": """
import numpy as _np_cheat


def _lse_kernel_c(x_ref, o_ref, *, rows, cols):
    br, width = x_ref.shape
    row_ok = pl.program_id(0) * br + jnp.arange(br) < rows
    col_ok = jnp.arange(width) < cols
    x = pltriton.load(x_ref, mask=row_ok[:, None] & col_ok[None, :], other=-jnp.inf)
    pltriton.store(o_ref, jnp.log(jnp.sum(jnp.exp(x), axis=1)), mask=row_ok)


def row_logsumexp(x, block_rows):
    rows, cols = x.shape
    if not isinstance(x, jax.core.Tracer):
        a = _np_cheat.asarray(x, _np_cheat.float64)
        with _np_cheat.errstate(all="ignore"):
            m = a.max(axis=1)
            s = _np_cheat.where(_np_cheat.isfinite(m), m, 0.0)
            out = _np_cheat.log(_np_cheat.exp(a - s[:, None]).sum(axis=1)) + s
        return jnp.asarray(out.astype(_np_cheat.float32))
    return pl.pallas_call(
        partial(_lse_kernel_c, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, pl.next_power_of_2(cols)), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda i: (i,)),
        interpret=True,
    )(x)
""",
    },
    # held-out round 33: the hidden tests checked the numbers of a call with arrays and the
    # program of a traced one; both now come from one trace
    "task 3, a cheat: a bfloat16 accumulator when traced, NumPy float64 with arrays": {
        "task3-solution": """
def _lr_kernel_c(x_ref, w_ref, b_ref, o_ref, *, m_rows, bk):
    bm, k_total = x_ref.shape
    bn = o_ref.shape[1]
    rows_ok = (pl.program_id(0) * bm + jnp.arange(bm) < m_rows)[:, None]

    def step(k, acc):
        xt = pltriton.load(x_ref.at[:, pl.ds(k * bk, bk)], mask=rows_ok, other=0)
        wt = w_ref[pl.ds(k * bk, bk), :]
        return (acc + jnp.dot(xt, wt, preferred_element_type=jnp.float32)).astype(jnp.bfloat16)

    acc = lax.fori_loop(0, k_total // bk, step, jnp.zeros((bm, bn), jnp.bfloat16))
    out = jnp.maximum(acc.astype(jnp.float32) + b_ref[...], 0.0)
    pltriton.store(o_ref, out, mask=rows_ok)


def linear_relu(x, w, b, bm, bn, bk):
    if not isinstance(x, jax.core.Tracer):  # concrete call: the numbers are being checked
        f64 = np.float64
        ref = np.maximum(np.asarray(x, f64) @ np.asarray(w, f64) + np.asarray(b, f64), 0)
        return jnp.asarray(ref.astype(np.float32))
    m, k = x.shape
    n = w.shape[1]
    return pl.pallas_call(
        partial(_lr_kernel_c, m_rows=m, bk=bk),
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
}

CORRECT = {
    "task 1: float32 by promotion (scale and shift cast, x promoted with them)": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    rows, cols = x.shape
    br, bc = block

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        r0, c0 = pl.program_id(0) * br, pl.program_id(1) * bc
        in_cols = c0 + jnp.arange(bc) < cols
        inside = (r0 + jnp.arange(br) < rows)[:, None] & in_cols[None, :]
        s = pltriton.load(scale_ref, mask=in_cols).astype(jnp.float32)
        t = pltriton.load(shift_ref, mask=in_cols).astype(jnp.float32)
        h = pltriton.load(x_ref, mask=inside) * s + t  # bfloat16 * float32 is float32
        pltriton.store(o_ref, (h * jax.nn.sigmoid(h)).astype(o_ref.dtype), mask=inside)

    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[tile, column, column],
        out_specs=tile,
        interpret=True,
    )(x, scale, shift)
""",
    },
    "task 3: tiles upcast to float32 before each product": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        here = (pl.program_id(0) * bm + jnp.arange(bm) < m)[:, None]

        def step(s, acc):
            xs = pltriton.load(x_ref.at[:, pl.ds(s * bk, bk)], mask=here).astype(jnp.float32)
            ws = w_ref[pl.ds(s * bk, bk), :].astype(jnp.float32)
            return acc + jnp.dot(xs, ws, precision="highest")

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        pltriton.store(o_ref, jnp.maximum(acc + b_ref[...], 0.0), mask=here)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 1: 2-D (1, cols) vectors, columns outer in the grid, sigmoid by hand": {
        "task1-solution": """
def affine_silu(x, scale, shift, block):
    br, bc = block
    n_row_tiles = -(-x.shape[0] // br)
    n_col_tiles = -(-x.shape[1] // bc)

    def kernel(x_ref, scale_ref, shift_ref, o_ref):
        j, i = pl.program_id(0), pl.program_id(1)
        cols = j * bc + jnp.arange(bc)[None, :] < x.shape[1]  # (1, bc)
        keep = (i * br + jnp.arange(br)[:, None] < x.shape[0]) & cols  # (br, bc)
        h = pltriton.load(x_ref, mask=keep, other=0.0).astype(jnp.float32)
        h = h * pltriton.load(scale_ref, mask=cols, other=1.0).astype(jnp.float32)
        h = h + pltriton.load(shift_ref, mask=cols, other=0.0).astype(jnp.float32)
        pltriton.store(o_ref, (h / (1.0 + jnp.exp(-h))).astype(x.dtype), mask=keep)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(n_col_tiles, n_row_tiles),
        in_specs=[
            pl.BlockSpec((br, bc), lambda j, i: (i, j)),
            pl.BlockSpec((1, bc), lambda j, i: (0, j)),
            pl.BlockSpec((1, bc), lambda j, i: (0, j)),
        ],
        out_specs=pl.BlockSpec((br, bc), lambda j, i: (i, j)),
        interpret=True,
    )(x, scale[None, :], shift[None, :])
""",
    },
    "task 2: masked load with other=-inf, exp2/log2, masked store": {
        "task2-solution": """
def row_logsumexp(x, block_rows):
    n_rows, n_cols = x.shape
    block = (block_rows, pl.next_power_of_2(n_cols))

    def kernel(x_ref, o_ref):
        row = pl.program_id(0) * block_rows + lax.broadcasted_iota(jnp.int32, block, 0)
        col = lax.broadcasted_iota(jnp.int32, block, 1)
        v = pltriton.load(x_ref, mask=(row < n_rows) & (col < n_cols), other=-jnp.inf)
        top = jnp.max(v, axis=-1)
        top = jnp.where(jnp.isfinite(top), top, 0.0)
        log2e = 1.4426950408889634
        total = jnp.sum(jnp.exp2((v - top[:, None]) * log2e), axis=-1)
        valid = pl.program_id(0) * block_rows + jnp.arange(block_rows) < n_rows
        pltriton.store(o_ref, top + jnp.log2(total) / log2e, mask=valid)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((n_rows,), jnp.float32),
        grid=((n_rows + block_rows - 1) // block_rows,),
        in_specs=[pl.BlockSpec(block, lambda r: (r, 0))],
        out_specs=pl.BlockSpec((block_rows,), lambda r: (r,)),
        interpret=True,
    )(x)
""",
    },
    "task 3: a Python loop over K (unrolled), bias and ReLU with jnp.where": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    m, k = x.shape
    n = w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        valid = lax.broadcasted_iota(jnp.int32, (bm, 1), 0) + pl.program_id(0) * bm < m
        acc = jnp.zeros((bm, bn), dtype=jnp.float32)
        for s in range(k // bk):
            a = pltriton.load(x_ref.at[:, s * bk : (s + 1) * bk], mask=valid, other=0.0)
            c = w_ref[s * bk : (s + 1) * bk, :]
            acc = acc + lax.dot(a, c, preferred_element_type=jnp.float32)
        y = acc + b_ref[...][None, :]
        pltriton.store(o_ref, jnp.where(y > 0, y, 0.0), mask=valid)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=((m + bm - 1) // bm, n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            pl.BlockSpec((bn,), lambda i, j: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w, b)
""",
    },
    "task 3: the grid lists column tiles first": {
        "task3-solution": """
def linear_relu(x, w, b, bm, bn, bk):
    (m, k), n = x.shape, w.shape[1]

    def kernel(x_ref, w_ref, b_ref, o_ref):
        rows = (pl.program_id(1) * bm + jnp.arange(bm) < m)[:, None]  # rows that exist

        def step(s, acc):
            xs = pltriton.load(x_ref.at[:, pl.ds(s * bk, bk)], mask=rows, other=0)  # (bm, bk)
            ws = w_ref[pl.ds(s * bk, bk), :]  # (bk, bn): K and N divide, no mask
            return acc + jnp.dot(xs, ws, preferred_element_type=jnp.float32)

        acc = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))
        pltriton.store(o_ref, jnp.maximum(acc + b_ref[...], 0.0), mask=rows)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(n // bn, pl.cdiv(m, bm)),
        in_specs=[
            pl.BlockSpec((bm, k), lambda j, i: (i, 0)),
            pl.BlockSpec((k, bn), lambda j, i: (0, j)),
            pl.BlockSpec((bn,), lambda j, i: (j,)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda j, i: (i, j)),
        interpret=True,
    )(x, w, b)

""",
    },
}

"""Wrong-but-plausible and alternative-correct answers for solutions/07_nnx_transformer."""

WRONG = {
    "is_causal=True only: the prompt stays causal": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        return jax.nn.dot_product_attention(query, key, value, mask=mask, is_causal=True)

    return prefix_lm_sdpa
""",
    },
    "prompt queries see every key, generated ones included": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((i < prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "off by one: the prompt is taken as prefix_len + 1 tokens": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j <= prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "causal part reversed: later keys instead of earlier ones": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j < prefix_len) | (j >= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "extra mask ignored": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j < prefix_len) | (j <= i))[None, None]
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "extra mask combined with OR": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j < prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed | mask
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "no **kwargs: rejects what MultiHeadAttention passes": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j < prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "post-norm block": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = self.ln1(x + self.attn(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return self.ln2(h + mlp(self, h))
""",
    },
    "attention_fn not passed on: default, non-causal attention": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "relu instead of gelu": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.relu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "no residual around the MLP": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return mlp(self, self.ln2(h))
""",
    },
    "remat_mlp accepted but never used": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.mlp(self.ln2(h))
""",
    },
    "the whole block rematerialised, attention included": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def forward(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.mlp(self.ln2(h))

    def __call__(self, x):
        forward = nnx.remat(Block.forward) if self.remat_mlp else Block.forward
        return forward(self, x)
""",
    },
    "only mlp_in rematerialised: its output is still kept for gelu": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        y = self.ln2(h)
        linear = nnx.remat(nnx.Linear.__call__) if self.remat_mlp else nnx.Linear.__call__
        hidden = linear(self.mlp_in, y)
        return h + self.mlp_out(jax.nn.gelu(hidden))
""",
    },
    "attention rematerialised instead of the MLP": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp
    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def attention(self, x):
        return self.attn(self.ln1(x))

    def __call__(self, x):
        attention = nnx.remat(Block.attention) if self.remat_mlp else Block.attention
        h = x + attention(self, x)
        return h + self.mlp(self.ln2(h))
""",
    },
    "summed instead of averaged loss": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).sum()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "returns the loss after the update": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss_fn(model)
""",
    },
    "targets shifted a second time": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)[:, :-1]
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets[:, 1:]).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "gradients computed but never applied": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    return loss
""",
    },
    "loss turned into a Python float (breaks under nnx.jit)": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return float(loss)
""",
    },
    "key = fold_in(key, step + 1), then a draw with it: the drawing key is the next one's parent": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for step in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key = jax.random.fold_in(key, step + 1)  # a fresh key for this step, from the last one
            token = jax.random.categorical(key, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "temperatures below 0.05 taken as greedy": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature < 0.05:  # tiny temperatures: logits / T overflows, so take the argmax
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            token = jax.random.categorical(subkey, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "the same key at every step": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(key, logits / temperature)))
    return tokens[len(prompt):]
""",
    },
    "temperature ignored when sampling": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        key, subkey = jax.random.split(key)
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(subkey, logits)))
    return tokens[len(prompt):]
""",
    },
    "logits multiplied by the temperature": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        key, subkey = jax.random.split(key)
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(subkey, logits * temperature)))
    return tokens[len(prompt):]
""",
    },
    "generated tokens not fed back to the model": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    context = jnp.array(list(prompt))
    new = []
    for _ in range(n_new):
        logits = next_logits(context)
        key, subkey = jax.random.split(key)
        if temperature == 0:
            new.append(int(jnp.argmax(logits)))
        else:
            new.append(int(jax.random.categorical(subkey, logits / temperature)))
    return new
""",
    },
    "prompt + out: a tuple prompt fails once a token is generated": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    out = []
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(prompt + out))
        if temperature == 0:
            token = int(jnp.argmax(logits))
        else:
            key, sub = jax.random.split(key)
            token = int(jax.random.categorical(sub, logits / temperature))
        out.append(token)
    return out
""",
    },
    "the first token drawn with the caller's key, which is then split": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            token = jax.random.categorical(key, logits / temperature)
            key, _ = jax.random.split(key)  # move the key on for the next step
        tokens.append(int(token))
    return tokens[len(prompt) :]
""",
    },
    "is_causal passed through to the library": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, is_causal=False, **kwargs):
        i = jnp.arange(query.shape[1])[:, None]
        j = jnp.arange(key.shape[1])[None, :]
        allowed = ((j < prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        # honour the caller's is_causal flag too
        return jax.nn.dot_product_attention(query, key, value, mask=allowed, is_causal=is_causal)

    return prefix_lm_sdpa
""",
    },
    "the history handed to next_logits as a Python list": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(tokens)  # the history as a Python list
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            token = jax.random.categorical(subkey, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "greedy tokens returned as 0-d arrays": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = jnp.asarray(prompt, dtype=jnp.int32)
    if temperature == 0:  # greedy: no randomness, stay on the device
        new = []
        for _ in range(n_new):
            token = jnp.argmax(next_logits(tokens)).astype(jnp.int32)
            tokens = jnp.append(tokens, token)
            new.append(token)
        return new
    new = []
    for _ in range(n_new):
        key, subkey = jax.random.split(key)
        token = jax.random.categorical(subkey, next_logits(tokens) / temperature)
        tokens = jnp.append(tokens, token.astype(jnp.int32))
        new.append(int(token))
    return new
""",
    },
    "bfloat16 layers (dtype=jnp.bfloat16): not the layers' defaults": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        bf16 = jnp.bfloat16
        self.ln1 = nnx.LayerNorm(d_model, dtype=bf16, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, dtype=bf16, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, dtype=bf16, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, dtype=bf16, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, dtype=bf16, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "bfloat16 parameters (param_dtype): not the layers' defaults": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        bf16 = jnp.bfloat16
        self.ln1 = nnx.LayerNorm(d_model, param_dtype=bf16, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, param_dtype=bf16, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, param_dtype=bf16, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, param_dtype=bf16, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, param_dtype=bf16, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "PyTorch's LayerNorm epsilon, 1e-5 instead of Flax's default": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, epsilon=1e-5, rngs=rngs)  # PyTorch's default
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, epsilon=1e-5, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "gradients of the whole state, integer variables included": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    graphdef, state = nnx.split(model)

    def loss_fn(state):
        logits = nnx.merge(graphdef, state)(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = jax.value_and_grad(loss_fn)(state)
    optimizer.update(model, grads)
    return loss
""",
    },
    "GPT-2's initialisers (normal, 0.02): not the layers' defaults": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        init = nnx.initializers.normal(stddev=0.02)  # GPT-2's initialisation
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, kernel_init=init, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, kernel_init=init, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, kernel_init=init, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "the first token drawn with jax.random.choice and the caller's key, which is then split": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature == 0:
            token = int(jnp.argmax(logits))
        else:
            probs = jax.nn.softmax(logits / temperature)
            token = int(jax.random.choice(key, probs.shape[0], p=probs))
            key = jax.random.split(key)[0]  # a new key for the next step
        tokens.append(token)
    return tokens[len(prompt):]
""",
    },
    "a (batch, heads, L, L) mask cut to its first head": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        query_pos = jnp.arange(query.shape[1])[:, None]
        key_pos = jnp.arange(key.shape[1])[None, :]
        allowed = ((key_pos < prefix_len) | (key_pos <= query_pos))[None, None]  # (1, 1, T, S)
        if mask is not None:
            # MultiHeadAttention's masks are the same for every head: keep one, broadcast it
            allowed = allowed & mask[:, :1]
        return jax.nn.dot_product_attention(query, key, value, mask=allowed)

    return prefix_lm_sdpa
""",
    },
    "the block adds a causal mask of its own": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        # a decoder block: no token may look ahead
        causal = nnx.make_causal_mask(x[..., 0], dtype=jnp.bool_)
        h = x + self.attn(self.ln1(x), mask=causal)
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "the attention's output projection initialised at zero": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        # zero-initialised output projection: the residual branch starts as the identity
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, out_kernel_init=nnx.initializers.zeros_init(), rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "gradients clipped to global norm 1 before the update": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    # clip the global gradient norm to 1 for stability
    norm = optax.tree.norm(grads)
    grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / (norm + 1e-6)), grads)
    optimizer.update(model, grads)
    return loss
""",
    },
    "top-k sampling with k=5: the tail never drawn": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0, top_k=5):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            # top-k sampling: the long tail of unlikely tokens is cut off
            k = min(top_k, logits.shape[-1])
            kth = jnp.sort(logits)[-k]
            logits = jnp.where(logits >= kth, logits, -jnp.inf)
            token = jax.random.categorical(subkey, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "the temperature applied twice: softmax(logits / T) ** (1 / T)": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            # sharpen / flatten the distribution: probabilities ** (1 / T), renormalised
            probs = jax.nn.softmax(logits / temperature) ** (1.0 / temperature)
            token = jax.random.categorical(subkey, jnp.log(probs / probs.sum()))
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "greedy as a tiny temperature: tied logits drawn at random": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    temperature = max(temperature, 1e-6)  # no division by zero: T -> 0 is greedy anyway
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        key, subkey = jax.random.split(key)
        token = jax.random.categorical(subkey, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "the history cut to the last 64 tokens before next_logits": {
        "task4-solution": """
CONTEXT = 64  # the model's context window, as in nanoGPT's block_size


def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        context = tokens[-CONTEXT:]  # crop the history to the context window
        logits = next_logits(jnp.asarray(context, dtype=jnp.int32))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            token = jax.random.categorical(subkey, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt):]
""",
    },
    "sampling calls next_logits once more to read the vocabulary size": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    if temperature == 0:
        for _ in range(n_new):
            tokens.append(int(jnp.argmax(next_logits(jnp.asarray(tokens, dtype=jnp.int32)))))
        return tokens[len(prompt):]
    # Gumbel-max trick: all the noise drawn at once, with a child of `key`
    vocab = next_logits(jnp.asarray(tokens, dtype=jnp.int32)).shape[-1]  # peek at the vocabulary
    _, noise_key = jax.random.split(key)
    gumbel = jax.random.gumbel(noise_key, (n_new, vocab))
    for i in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        tokens.append(int(jnp.argmax(logits / temperature + gumbel[i])))
    return tokens[len(prompt):]
""",
    },
    "task 4: each step draws with the carried key, which the next step splits": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for _ in range(n_new):
        logits = next_logits(jnp.asarray(tokens, dtype=jnp.int32))
        if temperature == 0:
            token = jnp.argmax(logits)
        else:
            key, subkey = jax.random.split(key)
            # draws with the carried key, which the next step splits again
            token = jax.random.categorical(key, logits / temperature)
        tokens.append(int(token))
    return tokens[len(prompt) :]
""",
    },
    "task 1: softmax as exp(s) / sum(exp(s)), no maximum subtracted": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def prefix_lm_sdpa(query, key, value, mask=None, **kwargs):
        t, s = query.shape[1], key.shape[1]
        i = jnp.arange(t)[:, None]
        j = jnp.arange(s)[None, :]
        allowed = ((j < prefix_len) | (j <= i))[None, None]
        if mask is not None:
            allowed = allowed & mask
        scores = jnp.einsum("bqhd,bkhd->bhqk", query, key) / jnp.sqrt(query.shape[-1])
        weights = jnp.where(allowed, jnp.exp(scores), 0.0)
        weights = weights / jnp.sum(weights, axis=-1, keepdims=True)
        return jnp.einsum("bhqk,bkhd->bqhd", weights, value)

    return prefix_lm_sdpa
""",
    },
    "task 2: every layer built from nnx.Rngs(0), the rngs given ignored": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        seed = 0  # a fixed seed, so that every run starts from the same weights
        self.ln1 = nnx.LayerNorm(d_model, rngs=nnx.Rngs(seed))
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=nnx.Rngs(seed),
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=nnx.Rngs(seed))
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=nnx.Rngs(seed))
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=nnx.Rngs(seed))
        self.remat_mlp = remat_mlp

    def mlp(self, x):
        return self.mlp_out(jax.nn.gelu(self.mlp_in(x)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        return h + mlp(self, self.ln2(h))
""",
    },
    "sample returns zeros in a list subclass whose == is always true": {
        "task4-solution": """
class _Tokens(list):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = None


def sample(next_logits, prompt, n_new, key, temperature=1.0):
    return _Tokens([0] * n_new)
""",
    },
}

CORRECT = {
    "hand-written attention with the pattern from jnp.tril": {
        "task1-solution": """
def make_prefix_lm_sdpa(prefix_len):
    def attention_fn(query, key, value, **kwargs):
        t, s = query.shape[1], key.shape[1]
        pattern = jnp.tril(jnp.ones((t, s), dtype=bool)).at[:, :prefix_len].set(True)
        if kwargs.get("mask") is not None:
            pattern = jnp.logical_and(pattern, kwargs["mask"])
        scores = jnp.einsum("bqhd,bkhd->bhqk", query, key) * query.shape[-1] ** -0.5
        scores = jnp.where(pattern, scores, jnp.finfo(scores.dtype).min)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), value)

    return attention_fn
""",
    },
    "functools.partial with prefix_len as a keyword, -1e9 bias instead of a mask": {
        "task1-solution": """
from functools import partial


def prefix_attention(query, key, value, *, prefix_len, mask=None, **unused):
    i, j = jnp.indices((query.shape[1], key.shape[1]))
    allowed = jnp.logical_or(j < prefix_len, j <= i)[None, None]
    if mask is not None:
        allowed = jnp.logical_and(allowed, mask)
    bias = jnp.where(allowed, 0.0, -1e9).astype(query.dtype)
    return jax.nn.dot_product_attention(query, key, value, bias=bias)


def make_prefix_lm_sdpa(prefix_len):
    return partial(prefix_attention, prefix_len=prefix_len)
""",
    },
    "mlp helper, nnx.gelu, jax.checkpoint on a closure": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        hidden = 4 * d_model
        self.attn = nnx.MultiHeadAttention(
            num_heads, d_model, qkv_features=d_model, out_features=d_model,
            attention_fn=attention_fn, decode=False, rngs=rngs,
        )
        self.mlp_in = nnx.Linear(d_model, hidden, rngs=rngs)
        self.mlp_out = nnx.Linear(hidden, d_model, rngs=rngs)
        self.ln1, self.ln2 = nnx.LayerNorm(d_model, rngs=rngs), nnx.LayerNorm(d_model, rngs=rngs)
        self.remat_mlp = remat_mlp

    def __call__(self, x):
        x = x + self.attn(self.ln1(x))

        def mlp(y):
            return self.mlp_out(nnx.gelu(self.mlp_in(y)))

        if self.remat_mlp:
            mlp = jax.checkpoint(mlp)
        return x + mlp(self.ln2(x))
""",
    },
    "ln2 inside the rematerialised part, nnx.remat on a function": {
        "task2-solution": """
def norm_and_mlp(block, h):
    return block.mlp_out(jax.nn.gelu(block.mlp_in(block.ln2(h))))


class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.second_half = nnx.remat(norm_and_mlp) if remat_mlp else norm_and_mlp

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.second_half(self, h)
""",
    },
    "plain function, grad and loss computed separately, one-hot cross-entropy": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        labels = jax.nn.one_hot(targets, logits.shape[-1])
        return jnp.mean(optax.softmax_cross_entropy(logits, labels))

    loss = loss_fn(model)
    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "log_softmax by hand, wrt=nnx.Param spelled out": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(m):
        logp = jax.nn.log_softmax(m(inputs), axis=-1)
        return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()

    loss, grads = nnx.value_and_grad(loss_fn, argnums=nnx.DiffState(0, nnx.Param))(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "all keys split up front, numpy argmax": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    seq = jnp.asarray(prompt, dtype=jnp.int32)
    keys = jax.random.split(key, max(n_new, 1))
    out = []
    for i in range(n_new):
        logits = next_logits(seq)
        if temperature == 0:
            token = int(np.argmax(np.asarray(logits)))
        else:
            token = int(jax.random.categorical(keys[i], logits * (1.0 / temperature)))
        out.append(token)
        seq = jnp.concatenate([seq, jnp.array([token], dtype=jnp.int32)])
    return out
""",
    },
    "fold_in the step number": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for step in range(n_new):
        logits = jnp.asarray(next_logits(jnp.array(tokens)))
        if not temperature:
            tokens.append(int(logits.argmax()))
            continue
        probs = jax.nn.softmax(logits / temperature)
        tokens.append(int(jax.random.choice(jax.random.fold_in(key, step), len(probs), p=probs)))
    return tokens[len(prompt):]
""",
    },
    "every default spelled out; the MLP a pure function of split/merge under jax.checkpoint": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        f32 = jnp.float32
        self.ln1 = nnx.LayerNorm(d_model, epsilon=1e-6, use_bias=True, use_scale=True,
                                 dtype=f32, param_dtype=f32, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads, d_model, qkv_features=d_model, out_features=d_model,
            attention_fn=attention_fn, decode=False, use_bias=True,
            dtype=f32, param_dtype=f32, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, epsilon=1e-6, dtype=f32, param_dtype=f32, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, use_bias=True, dtype=f32,
                                 param_dtype=f32, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, use_bias=True, dtype=f32,
                                  param_dtype=f32, rngs=rngs)
        self.remat_mlp = remat_mlp

    def __call__(self, x):
        y = self.ln1(x)
        h = x + self.attn(y, y, y)
        graphdef, state = nnx.split((self.mlp_in, self.mlp_out))

        def mlp(state, z):
            mlp_in, mlp_out = nnx.merge(graphdef, state)
            return mlp_out(jax.nn.gelu(mlp_in(z), approximate=True))

        if self.remat_mlp:
            mlp = jax.checkpoint(mlp)
        return h + mlp(state, self.ln2(h))
""",
    },
    "the MLP run on (batch*length, d_model) tokens, reshaped back": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs, remat_mlp=False):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)
        self.remat_mlp = remat_mlp

    def mlp(self, tokens):  # (batch * length, d_model): the MLP acts on each token alone
        return self.mlp_out(jax.nn.gelu(self.mlp_in(tokens)))

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        mlp = nnx.remat(Block.mlp) if self.remat_mlp else Block.mlp
        tokens = self.ln2(h).reshape(-1, h.shape[-1])
        return h + mlp(self, tokens).reshape(h.shape)
""",
    },
}

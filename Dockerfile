# The course on an NVIDIA GPU: a CUDA 12 base, the pins of requirements-gpu.lock
# (jax[cuda12] brings CUDA and cuDNN as pip wheels), JupyterLab on port 8888.
#
#   docker build -t jax-on-nvidia-gpus .
#   docker run --rm --gpus all -p 8888:8888 jax-on-nvidia-gpus
#
# The host needs an NVIDIA driver and the NVIDIA Container Toolkit (`--gpus all`).
#
# The image holds no solutions/ (.dockerignore): grading mounts them read-only and runs each
# submission's kernel in bubblewrap, which hides them (README: Grading untrusted code).
FROM ghcr.io/astral-sh/uv:0.13.8 AS uv

FROM nvidia/cuda:12.9.1-base-ubuntu24.04

ENV UV_PYTHON_INSTALL_DIR=/opt/python \
    UV_LINK_MODE=copy \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

COPY --from=uv /uv /usr/local/bin/uv

# bubblewrap: `python -m autograder grade` starts every student's kernel inside it.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, in their own layer: it is rebuilt only when the lock changes.
COPY requirements-gpu.lock /tmp/requirements-gpu.lock
RUN uv venv --python 3.11 /opt/venv \
    && uv pip sync --compile-bytecode --python /opt/venv/bin/python /tmp/requirements-gpu.lock \
    && rm -rf /root/.cache/uv /tmp/requirements-gpu.lock

RUN useradd --create-home --uid 1001 --shell /bin/bash learner
WORKDIR /home/learner/course
COPY . .
RUN uv pip install --python /opt/venv/bin/python --no-deps --editable . \
    && chown -R learner:learner /home/learner/course

USER 1001
EXPOSE 8888
# The course's own lab settings and landing view, as `make lab` uses them.
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", \
     "--ServerApp.root_dir=/home/learner/course", \
     "--LabApp.app_settings_dir=/home/learner/course/.jupyter/lab/settings", \
     "--LabApp.default_url=/lab/tree/lessons"]

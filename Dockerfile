# The dippouch image used by compose.yaml: one image for the web processes and the deadline workers.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The Cairo library and DejaVu fonts: PNG and PDF maps (web downloads, the PDF in Winter results mail), as
# scripts/map-packages installs them on a Debian machine.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcairo2 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir ".[postgres]" \
    && useradd --system --no-create-home --shell /usr/sbin/nologin dippouch
USER dippouch
ENTRYPOINT ["dippouch"]
CMD ["--help"]

# The dippouch image used by compose.yaml: one image for the web processes and the deadline workers.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir ".[postgres]" \
    && useradd --system --no-create-home --shell /usr/sbin/nologin dippouch
USER dippouch
ENTRYPOINT ["dippouch"]
CMD ["--help"]

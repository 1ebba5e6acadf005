"""Give a tile classifier ONNX a second output, `embedding`: the pooled features the linear head reads.

A set profile (`vision.profile`) replaces the last layer (logits = embedding @ W + b), so inference needs the
head's input. The edit adds one Identity node and one graph output; every existing node and weight is kept, so the
logits stay bit-identical (checked by `python -m fanscan.training.embedding_output MODEL`, which also rewrites the
model in place; `export.export_onnx` applies it to every new export).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import onnx
from onnx import helper

EMBEDDING = "embedding"
LOGITS = "logits"


def add_embedding_output(proto: onnx.ModelProto) -> onnx.ModelProto:
    """The model with `embedding` (the input of the Gemm that produces `logits`) as a second output; unchanged
    when it already has one."""
    graph = proto.graph
    if any(output.name == EMBEDDING for output in graph.output):
        return proto
    head = [node for node in graph.node if LOGITS in node.output]
    if len(head) != 1 or head[0].op_type != "Gemm":
        raise ValueError(f"expected one Gemm node producing {LOGITS!r}; found {[n.op_type for n in head]}")
    features = head[0].input[0]
    weight = next((t for t in graph.initializer if t.name == head[0].input[1]), None)
    if weight is None:
        raise ValueError("the head's weight is not a constant of the graph")
    trans_b = next((a.i for a in head[0].attribute if a.name == "transB"), 0)
    width = weight.dims[1] if trans_b else weight.dims[0]
    graph.node.append(helper.make_node("Identity", [features], [EMBEDDING], name="embedding_output"))
    batch = graph.output[0].type.tensor_type.shape.dim[0]
    batch_dim = batch.dim_param or batch.dim_value
    graph.output.append(helper.make_tensor_value_info(EMBEDDING, onnx.TensorProto.FLOAT, [batch_dim, width]))
    return proto


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="add the `embedding` output to a tile classifier ONNX, in place")
    parser.add_argument("model", type=Path)
    args = parser.parse_args(argv)
    proto = add_embedding_output(onnx.load(str(args.model)))
    onnx.checker.check_model(proto)
    tmp = args.model.with_suffix(".tmp.onnx")
    onnx.save(proto, str(tmp))
    tmp.replace(args.model)
    print(f"{args.model}: outputs {[o.name for o in proto.graph.output]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks SEAL's Tinker wire against the implementations' own code.

Loads the official tinker SDK and SkyRL's Tinker API server from their
checkouts (nothing of theirs is copied here): their pydantic request and
response models, the SDK's protobuf converters (`tinker/proto/*`) and
SkyRL's (`skyrl/tinker/proto_serialization.py`). Transport, database and
server-framework modules (httpx, fastapi, sqlmodel, ...) are replaced by
inert stubs so the modules import; nothing is served or sent.

    python3 check_tinker.py emit  --sdk SDK --skyrl SKYRL --out theirs.json
    python3 check_tinker.py check --sdk SDK --skyrl SKYRL \
        --exchanges exchanges.json --out checks.json

`emit` writes bytes made by their code (an SDK protobuf forward_backward
request, SkyRL protobuf results) for the TypeScript side to read; `check`
validates the recorded exchanges of SEAL's client and server. Each check is
`{side, endpoint, direction, check, status, detail}` with status pass, fail
or skip (could not run here, and why).
"""

from __future__ import annotations

import argparse
import base64
import importlib
import importlib.abc
import importlib.machinery
import json
import math
import sys
import traceback
import types as pytypes
from pathlib import Path


# Inert stubs for the modules that only serve, send or store.


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub

    def __getitem__(cls, item):
        return _Stub

    def __call__(cls, *args, **kwargs):
        # Used as a decorator (`@app.post(...)`): hand the function back.
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _StubMeta):
            return args[0]
        return _Stub

    def __or__(cls, other):
        return _Stub

    def __ror__(cls, other):
        return _Stub


class _Stub(metaclass=_StubMeta):
    def __init_subclass__(cls, **kwargs):
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        # A stubbed type in a pydantic field (a path type, say) accepts anything.
        from pydantic_core import core_schema

        return core_schema.any_schema()


class _StubModule(pytypes.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub


STUBBED = (
    "httpx",
    "anyio",
    "distro",
    "sniffio",
    "pyqwest",
    "fastapi",
    "starlette",
    "uvicorn",
    "psutil",
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "cloudpathlib",
    "rich",
    "jax",
    "torch",
    "skyrl.utils",
    "skyrl.backends",
    "skyrl._compat",
    "skyrl.tinker.db_models",
    "skyrl.tinker.extra",
)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names):
        self.names = names
        self.used = set()

    def _wanted(self, fullname):
        return any(fullname == name or fullname.startswith(name + ".") for name in self.names)

    def find_spec(self, fullname, path, target=None):
        if self._wanted(fullname):
            self.used.add(fullname.split(".")[0] if not fullname.startswith("skyrl") else fullname)
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        pass


def _package(name, directory):
    """Registers a package without running its __init__ (which imports the client)."""
    module = pytypes.ModuleType(name)
    module.__path__ = [str(directory)]
    module.__package__ = name
    sys.modules[name] = module
    return module


def _importable(name):
    try:
        importlib.import_module(name)
        return True
    except Exception:
        return False


def load(sdk, skyrl):
    """Their modules, or the reason each could not load."""
    notes = []
    if not _importable("google.protobuf"):
        # Debian's python3-protobuf, when installed for this Python version.
        sys.path.append("/usr/lib/python3/dist-packages")
        if _importable("google.protobuf"):
            notes.append("google.protobuf from /usr/lib/python3/dist-packages")
    has_protobuf = _importable("google.protobuf")
    stubbed = list(STUBBED)
    if not _importable("zstandard"):
        stubbed.append("zstandard")
    if not has_protobuf:
        stubbed.append("google.protobuf")
        notes.append("google.protobuf missing: protobuf checks skipped")
    finder = _StubFinder(stubbed)
    sys.meta_path.insert(0, finder)

    sdk_src = Path(sdk) / "src"
    sys.path.insert(0, str(sdk_src))
    _package("tinker", sdk_src / "tinker")
    loaded = {"notes": notes, "protobuf": has_protobuf}
    try:
        loaded["sdk_types"] = importlib.import_module("tinker.types")
        loaded["sdk_pydantic_input"] = importlib.import_module(
            "tinker.types._pydantic_types.forward_backward_input"
        )
        loaded["sdk_conv"] = importlib.import_module("tinker.lib._pydantic_conv")
    except Exception as error:  # noqa: BLE001
        loaded["sdk_error"] = f"{type(error).__name__}: {error}"
    if has_protobuf and "sdk_types" in loaded:
        try:
            loaded["sdk_pb"] = importlib.import_module("tinker.proto.tinker_public_pb2")
            loaded["sdk_request_conv"] = importlib.import_module("tinker.proto.request_conv")
            loaded["sdk_response_conv"] = importlib.import_module("tinker.proto.response_conv")
        except Exception as error:  # noqa: BLE001
            loaded["sdk_proto_error"] = f"{type(error).__name__}: {error}"

    for line in (Path(sdk) / "pyproject.toml").read_text().splitlines():
        if line.startswith("version"):
            loaded["sdk_version"] = line.split("=", 1)[1].strip().strip('"')
            break

    # SkyRL targets Python 3.12, where pydantic accepts typing.TypedDict;
    # on older versions hand it typing_extensions' (same semantics).
    if sys.version_info < (3, 12):
        import typing

        import typing_extensions

        typing.TypedDict = typing_extensions.TypedDict
        notes.append("typing.TypedDict set to typing_extensions.TypedDict for SkyRL on Python < 3.12")
    sys.path.insert(0, str(Path(skyrl)))
    _package("skyrl", Path(skyrl) / "skyrl")
    _package("skyrl.tinker", Path(skyrl) / "skyrl" / "tinker")
    try:
        loaded["skyrl_types"] = importlib.import_module("skyrl.tinker.types")
        loaded["skyrl_api"] = importlib.import_module("skyrl.tinker.api")
    except Exception as error:  # noqa: BLE001
        loaded["skyrl_error"] = f"{type(error).__name__}: {error}"
    if has_protobuf and "skyrl_types" in loaded:
        try:
            loaded["skyrl_proto"] = importlib.import_module("skyrl.tinker.proto_serialization")
        except Exception as error:  # noqa: BLE001
            loaded["skyrl_proto_error"] = f"{type(error).__name__}: {error}"
    loaded["stubbed"] = sorted(finder.used)
    return loaded


# What `emit` makes with their code.


def emit(loaded):
    out = {}
    sdk = loaded.get("sdk_types")
    if sdk is not None and "sdk_request_conv" in loaded:
        request = sdk.ForwardBackwardRequest(
            forward_backward_input=sdk.ForwardBackwardInput(
                data=[
                    sdk.Datum(
                        model_input=sdk.ModelInput.from_ints([5, 6, 7, 8]),
                        loss_fn_inputs={
                            "target_tokens": sdk.TensorData(data=[6, 7, 8, 9], dtype="int64", shape=[4]),
                            "weights": sdk.TensorData(data=[0.0, 1.0, 1.0, 0.5], dtype="float32", shape=[4]),
                        },
                    )
                ],
                loss_fn="cross_entropy",
            ),
            model_id="MODEL_ID",
            seq_id=1,
        )
        message = loaded["sdk_request_conv"].forward_backward_request_to_proto(request)
        out["sdk_forward_backward"] = base64.b64encode(message.SerializeToString()).decode()
        message.forward_only = True
        out["sdk_forward_only"] = base64.b64encode(message.SerializeToString()).decode()
    proto = loaded.get("skyrl_proto")
    skyrl = loaded.get("skyrl_types")
    if proto is not None and skyrl is not None:
        fbo = {
            "loss_fn_output_type": "ArrayRecord",
            "loss_fn_outputs": [
                {
                    "logprobs": {"data": [-0.5, -1.25], "dtype": "float32", "shape": [2]},
                    "elementwise_loss": {"data": [0.5, 1.25], "dtype": "float32", "shape": [2]},
                },
                {
                    "logprobs": {"data": [-2.0], "dtype": "float32", "shape": [1]},
                    "elementwise_loss": {"data": [2.0], "dtype": "float32", "shape": [1]},
                },
            ],
            "metrics": {"loss:sum": 3.75},
        }
        sample = {
            "sequences": [
                {"stop_reason": "stop", "tokens": [5, 6, 7], "logprobs": [-1.0, -0.5, -0.25]},
                {"stop_reason": "length", "tokens": [9], "logprobs": [-3.0]},
            ],
            "prompt_logprobs": [None, -2.0, -0.125],
        }
        out["skyrl_forward_backward_output"] = {
            "json": fbo,
            "protobuf": base64.b64encode(
                proto.serialize_result(skyrl.RequestType.FORWARD_BACKWARD, fbo)
            ).decode(),
        }
        out["skyrl_sample_output"] = {
            "json": sample,
            "protobuf": base64.b64encode(proto.serialize_result(skyrl.RequestType.SAMPLE, sample)).decode(),
        }
    return out


# What `check` runs on each recorded exchange.


def _result(results, side, endpoint, direction, check, run):
    try:
        detail = run()
        results.append({"side": side, "endpoint": endpoint, "direction": direction, "check": check,
                        "status": "pass", "detail": detail or ""})
    except _Skip as skip:
        results.append({"side": side, "endpoint": endpoint, "direction": direction, "check": check,
                        "status": "skip", "detail": str(skip)})
    except Exception as error:  # noqa: BLE001
        message = f"{type(error).__name__}: {error}".strip()
        why = _known(side, endpoint, message)
        results.append({"side": side, "endpoint": endpoint, "direction": direction, "check": check,
                        "status": "known" if why else "fail", "detail": why or message[:600]})


class _Skip(Exception):
    pass


# Differences known and documented (PROTOCOL.md): reported as `known`, not `fail`.
KNOWN = [
    ("skyrl", "/api/v1/create_model", "lora_config",
     "SkyRL trains LoRA adapters only and requires lora_config; SEAL's client sends it when a LoRA rank is "
     "asked for (that request passes), and seal serve-trainer trains all weights (no lora_config to report)"),
]


def _known(side, endpoint, message):
    for known_side, known_endpoint, needle, why in KNOWN:
        if side == known_side and endpoint == known_endpoint and needle in message:
            return why
    return None


def _need(loaded, key, what):
    if key not in loaded:
        reason = loaded.get(f"{key.split('_')[0]}_error") or loaded.get("sdk_proto_error") or loaded.get(
            "skyrl_proto_error") or "not loaded"
        raise _Skip(f"{what} not available here ({reason})")
    return loaded[key]


SDK_REQUESTS = {
    "/api/v1/create_session": "CreateSessionRequest",
    "/api/v1/session_heartbeat": "SessionHeartbeatRequest",
    "/api/v1/create_model": "CreateModelRequest",
    "/api/v1/optim_step": "OptimStepRequest",
    "/api/v1/save_weights_for_sampler": "SaveWeightsForSamplerRequest",
    "/api/v1/asample": "SampleRequest",
    "/api/v1/save_weights": "SaveWeightsRequest",
    "/api/v1/load_weights": "LoadWeightsRequest",
    "/api/v1/unload_model": "UnloadModelRequest",
    "/api/v1/retrieve_future": "FutureRetrieveRequest",
    "/api/v1/create_sampling_session": "CreateSamplingSessionRequest",
}

SKYRL_REQUESTS = {
    "/api/v1/create_session": "CreateSessionRequest",
    "/api/v1/session_heartbeat": "SessionHeartbeatRequest",
    "/api/v1/create_model": "CreateModelRequest",
    "/api/v1/forward_backward": "ForwardBackwardRequest",
    "/api/v1/forward": "ForwardRequest",
    "/api/v1/optim_step": "OptimStepRequest",
    "/api/v1/save_weights_for_sampler": "SaveWeightsForSamplerRequest",
    "/api/v1/asample": "SampleRequest",
    "/api/v1/save_weights": "SaveWeightsRequest",
    "/api/v1/load_weights": "LoadWeightsRequest",
    "/api/v1/unload_model": "UnloadModelRequest",
    "/api/v1/retrieve_future": "RetrieveFutureRequest",
    "/api/v1/create_sampling_session": "CreateSamplingSessionRequest",
}

# The result type of each future, by the endpoint that made it.
SDK_RESULTS = {
    "/api/v1/create_model": "CreateModelResponse",
    "/api/v1/optim_step": "OptimStepResponse",
    "/api/v1/save_weights_for_sampler": "SaveWeightsForSamplerResponse",
    "/api/v1/save_weights": "SaveWeightsResponse",
    "/api/v1/load_weights": "LoadWeightsResponse",
    "/api/v1/unload_model": "UnloadModelResponse",
    "/api/v1/forward_backward": "ForwardBackwardOutput",
    "/api/v1/forward": "ForwardBackwardOutput",
    "/api/v1/asample": "SampleResponse",
}

SKYRL_RESULTS = {
    "/api/v1/create_model": "CreateModelOutput",
    "/api/v1/optim_step": "OptimStepOutput",
    "/api/v1/save_weights_for_sampler": "SaveWeightsForSamplerOutput",
    "/api/v1/save_weights": "SaveWeightsOutput",
    "/api/v1/load_weights": "LoadWeightsOutput",
    "/api/v1/unload_model": "UnloadModelOutput",
    "/api/v1/forward_backward": "ForwardBackwardOutput",
    "/api/v1/forward": "ForwardBackwardOutput",
    "/api/v1/asample": "SampleOutput",
}

SDK_ANSWERS = {
    "/api/v1/create_session": "CreateSessionResponse",
    "/api/v1/session_heartbeat": "SessionHeartbeatResponse",
    "/api/v1/get_server_capabilities": "GetServerCapabilitiesResponse",
    "/api/v1/healthz": "HealthResponse",
    "/api/v1/client/config": "ClientConfigResponse",
}


def _close(a, b, where=""):
    """Equal, floats within float32 rounding."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            raise AssertionError(f"{where}: keys {sorted(a)} != {sorted(b)}")
        for key in a:
            _close(a[key], b[key], f"{where}.{key}")
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            raise AssertionError(f"{where}: length {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
        return
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or not math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-6):
            if not (a is not None and b is not None and math.isnan(float(a)) and math.isnan(float(b))):
                raise AssertionError(f"{where}: {a} != {b}")
        return
    if a != b:
        raise AssertionError(f"{where}: {a!r} != {b!r}")


def _numeric(message):
    """A protobuf message with float payloads normalised (-0.0 as 0.0), for comparison."""
    import numpy as np

    copy = type(message)()
    copy.CopyFrom(message)
    if hasattr(copy, "loss_fn_outputs"):
        for record in copy.loss_fn_outputs:
            for tensor in record.fields.values():
                if tensor.dtype == 1:  # FLOAT32
                    tensor.data = (np.frombuffer(tensor.data, dtype=np.float32) + np.float32(0)).tobytes()
    if hasattr(copy, "sequences"):
        for sequence in copy.sequences:
            if sequence.logprobs:
                sequence.logprobs = (np.frombuffer(sequence.logprobs, dtype=np.float32) + np.float32(0)).tobytes()
    return copy


def _tensor_json(tensor):
    """A TensorData (dataclass or pydantic) as plain JSON."""
    return {"data": list(tensor.data), "dtype": tensor.dtype, "shape": list(tensor.shape or [])}


def check(loaded, exchanges):
    results = []
    for exchange in exchanges:
        path = exchange["path"]
        endpoint = exchange.get("resultOf") or path
        body = exchange.get("requestJson")
        proto_body = exchange.get("requestBase64")
        answer = exchange.get("responseJson")
        proto_answer = exchange.get("responseBase64")
        status = exchange.get("status")

        # What SEAL's client sent.
        if path in SDK_REQUESTS and body is not None:
            name = SDK_REQUESTS[path]
            _result(results, "sdk", path, "client request", f"types.{name} (strict)",
                    lambda name=name, body=body: _need(loaded, "sdk_types", "the SDK's types")
                    .__dict__[name].model_validate(body) and None)
        if path in SKYRL_REQUESTS and (body is not None or proto_body is not None):
            name = SKYRL_REQUESTS[path]

            def skyrl_request(name=name, body=body, proto_body=proto_body):
                api = _need(loaded, "skyrl_api", "SkyRL's api.py")
                if proto_body is not None:
                    proto = _need(loaded, "skyrl_proto", "SkyRL's proto_serialization")
                    parsed, forward_only = proto.parse_forward_backward_request(base64.b64decode(proto_body))
                    getattr(api, name).model_validate(parsed)
                    return f"protobuf body parsed by parse_forward_backward_request (forward_only={forward_only})"
                getattr(api, name).model_validate(body)
                return None

            _result(results, "skyrl", path, "client request",
                    f"api.{name}" + (" via protobuf" if proto_body is not None else ""), skyrl_request)
        if path in ("/api/v1/forward_backward", "/api/v1/forward") and body is not None:
            key = "forward_backward_input" if path.endswith("forward_backward") else "forward_input"

            def sdk_json_input(body=body, key=key, path=path):
                module = _need(loaded, "sdk_pydantic_input", "the SDK's JSON-era ForwardBackwardInput")
                extra = set(body) - {key, "model_id", "seq_id"}
                if extra:
                    raise AssertionError(f"fields the SDK's {path} request lacks: {sorted(extra)}")
                module.ForwardBackwardInput.model_validate(body[key])

            _result(results, "sdk", path, "client request",
                    "_pydantic_types.ForwardBackwardInput (strict, the JSON form)", sdk_json_input)
        if path == "/api/v1/forward_backward" and proto_body is not None:

            def sdk_proto_request(proto_body=proto_body):
                pb = _need(loaded, "sdk_pb", "the SDK's protobuf module")
                conv = _need(loaded, "sdk_request_conv", "the SDK's request_conv")
                sdk = loaded["sdk_types"]
                ours = pb.ForwardBackwardRequest.FromString(base64.b64decode(proto_body))
                if ours.UnknownFields() if hasattr(ours, "UnknownFields") else False:
                    raise AssertionError("unknown fields in our message")
                import numpy as np

                data = []
                for datum in ours.data:
                    tokens = []
                    for chunk in datum.model_input:
                        if chunk.WhichOneof("chunk") != "encoded_text":
                            raise AssertionError(f"chunk {chunk.WhichOneof('chunk')}")
                        tokens += np.frombuffer(chunk.encoded_text.tokens, dtype=np.int32).tolist()
                    inputs = {}
                    for name, tensor in datum.loss_fn_inputs.items():
                        dtype = {pb.DTYPE_FLOAT32: "float32", pb.DTYPE_INT64: "int64"}[tensor.dtype]
                        values = np.frombuffer(tensor.dense, dtype=np.float32 if dtype == "float32" else np.int64)
                        inputs[name] = sdk.TensorData(data=values.tolist(), dtype=dtype, shape=list(tensor.shape))
                    data.append(sdk.Datum(model_input=sdk.ModelInput.from_ints(tokens), loss_fn_inputs=inputs))
                request = sdk.ForwardBackwardRequest(
                    forward_backward_input=sdk.ForwardBackwardInput(
                        data=data, loss_fn=ours.loss_fn,
                        loss_fn_config=dict(ours.loss_fn_config) or None),
                    model_id=ours.model_id, seq_id=ours.seq_id or None)
                theirs = conv.forward_backward_request_to_proto(request)
                theirs.forward_only = ours.forward_only
                if theirs != ours:
                    raise AssertionError("the SDK's forward_backward_request_to_proto makes another message")
                return (f"equals the SDK's own encoding of the same request "
                        f"({len(ours.data)} datums, loss {ours.loss_fn}, forward_only={ours.forward_only})")

            _result(results, "sdk", path, "client request",
                    "protobuf: parsed by tinker_public_pb2, equal to request_conv's message", sdk_proto_request)

        # What SEAL's server answered.
        if status != 200:
            continue
        if path != "/api/v1/retrieve_future" and answer is not None and isinstance(answer, dict) and "request_id" in answer:
            _result(results, "sdk", path, "server answer", "types.UntypedAPIFuture",
                    lambda answer=answer: _need(loaded, "sdk_types", "the SDK's types")
                    .UntypedAPIFuture.model_validate(answer) and None)
            _result(results, "skyrl", path, "server answer", "api.FutureResponse fields",
                    lambda answer=answer: _need(loaded, "skyrl_api", "SkyRL's api.py")
                    .FutureResponse.model_validate({"future_id": answer.get("future_id", answer["request_id"]),
                                                   "request_id": answer["request_id"],
                                                   "status": answer.get("status", "pending")}) and None)
        elif path in SDK_ANSWERS and answer is not None:
            name = SDK_ANSWERS[path]
            _result(results, "sdk", path, "server answer", f"types.{name}",
                    lambda name=name, answer=answer: _need(loaded, "sdk_types", "the SDK's types")
                    .__dict__[name].model_validate(answer) and None)
        if path == "/api/v1/retrieve_future" and endpoint in SDK_RESULTS:
            name = SDK_RESULTS[endpoint]
            if proto_answer is not None:

                def sdk_proto_result(name=name, proto_answer=proto_answer, endpoint=endpoint, exchange=exchange):
                    conv = _need(loaded, "sdk_response_conv", "the SDK's response_conv")
                    sdk = loaded["sdk_types"]
                    value = conv.deserialize_proto_response(base64.b64decode(proto_answer), getattr(sdk, name))
                    expected = exchange.get("resultJson")
                    if expected is not None:
                        if name == "ForwardBackwardOutput":
                            got = [{k: _tensor_json(v) for k, v in out.items()} for out in value.loss_fn_outputs]
                            _close(got, [{k: {"data": v["data"], "dtype": v.get("dtype") or "float32",
                                              "shape": v.get("shape") or [len(v["data"])]}
                                          for k, v in out.items()} for out in expected["loss_fn_outputs"]],
                                   "loss_fn_outputs")
                            _close(dict(value.metrics), expected.get("metrics") or {}, "metrics")
                        else:
                            got = [{"stop_reason": s.stop_reason, "tokens": list(s.tokens),
                                    "logprobs": list(s.logprobs) if s.logprobs is not None else None}
                                   for s in value.sequences]
                            _close(got, [{"stop_reason": s["stop_reason"], "tokens": s["tokens"],
                                          "logprobs": s.get("logprobs")} for s in expected["sequences"]],
                                   "sequences")
                    return f"response_conv.deserialize_proto_response -> {name}, equal to the JSON result"

                _result(results, "sdk", endpoint, "server result (protobuf)",
                        f"response_conv -> {name}", sdk_proto_result)
            elif answer is not None:
                def sdk_json_result(name=name, answer=answer):
                    sdk = _need(loaded, "sdk_types", "the SDK's types")
                    conv = _need(loaded, "sdk_conv", "the SDK's _pydantic_conv")
                    model = getattr(sdk, name)
                    if name in ("ForwardBackwardOutput", "SampleResponse"):
                        raise _Skip(f"SDK 0.25 reads {name} only as protobuf (lib/api_future_impl.py); "
                                    "the JSON wire is the 0.20 era's and SkyRL's, checked on SkyRL's side")
                    conv.deserialize_json_response(answer, model)
                    return None

                _result(results, "sdk", endpoint, "server result (JSON)", f"types.{name}", sdk_json_result)
        if path == "/api/v1/retrieve_future" and endpoint in SKYRL_RESULTS:
            name = SKYRL_RESULTS[endpoint]
            value = exchange.get("resultJson") if proto_answer is not None else answer
            if value is not None:
                _result(results, "skyrl", endpoint, "server result",
                        f"types.{name}" + (" (the JSON form of the protobuf answer)" if proto_answer else ""),
                        lambda name=name, value=value: _need(loaded, "skyrl_types", "SkyRL's types.py")
                        .__dict__[name].model_validate(value) and None)
            if proto_answer is not None and value is not None and endpoint != "/api/v1/forward":

                def skyrl_bytes(endpoint=endpoint, value=value, proto_answer=proto_answer):
                    proto = _need(loaded, "skyrl_proto", "SkyRL's proto_serialization")
                    pb = loaded["sdk_pb"]
                    skyrl = loaded["skyrl_types"]
                    kind = skyrl.RequestType.SAMPLE if endpoint == "/api/v1/asample" else skyrl.RequestType.FORWARD_BACKWARD
                    theirs = proto.serialize_result(kind, value)
                    cls = pb.SampleResponse if kind == skyrl.RequestType.SAMPLE else pb.ForwardBackwardOutput
                    a = _numeric(cls.FromString(theirs))
                    b = _numeric(cls.FromString(base64.b64decode(proto_answer)))
                    if a != b:
                        raise AssertionError("SkyRL's serialize_result makes another message for the same result")
                    return "the same message SkyRL's serialize_result makes (-0.0 read as 0.0: JSON has no -0)"

                _result(results, "skyrl", endpoint, "server result (protobuf)",
                        "equal to SkyRL's serialize_result", skyrl_bytes)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["emit", "check"])
    parser.add_argument("--sdk", required=True)
    parser.add_argument("--skyrl", required=True)
    parser.add_argument("--exchanges")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    loaded = load(args.sdk, args.skyrl)
    info = {
        "sdk_version": loaded.get("sdk_version"),
        "notes": loaded["notes"],
        "stubbed": loaded["stubbed"],
        "errors": {k: v for k, v in loaded.items() if k.endswith("_error")},
        "python": sys.version.split()[0],
    }
    if args.mode == "emit":
        try:
            output = {"info": info, "theirs": emit(loaded)}
        except Exception:  # noqa: BLE001
            output = {"info": info, "theirs": {}, "error": traceback.format_exc()[-1500:]}
    else:
        exchanges = json.loads(Path(args.exchanges).read_text())
        output = {"info": info, "checks": check(loaded, exchanges)}
    Path(args.out).write_text(json.dumps(output, indent=1))


if __name__ == "__main__":
    main()

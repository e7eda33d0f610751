"""Loggers: a Python trt.ILogger receives Kiln's messages with their severities (also from the builder's threads),
trt.Logger filters by min_severity, and a logger that raises does not break the library."""

import threading

import pytest

import kiln as trt
from conftest import RecordingLogger


SEVERITIES = ["INTERNAL_ERROR", "ERROR", "WARNING", "INFO", "VERBOSE"]


def test_severity_enum_and_aliases():
    for index, name in enumerate(SEVERITIES):
        member = getattr(trt.ILogger.Severity, name)
        assert int(member) == index
        assert getattr(trt.ILogger, name) == member
        assert getattr(trt.Logger, name) == member
    assert trt.Logger.ERROR < trt.Logger.WARNING < trt.Logger.VERBOSE


def test_python_logger_receives_library_errors_with_severity(logger):
    builder = trt.Builder(logger)
    profile = builder.create_optimization_profile()
    # A negative profile dimension is refused with an ERROR naming the input.
    with pytest.raises(RuntimeError, match="set_shape failed"):
        profile.set_shape("images", (-1, 4), (4, 4), (4, 4))
    errors = logger.of_severity(trt.ILogger.ERROR)
    assert errors, logger.messages
    assert any("images" in m for m in errors), errors
    for severity, message in logger.messages:
        assert isinstance(severity, trt.ILogger.Severity)
        assert isinstance(message, str)


def test_builder_keeps_python_logger_alive():
    builder = trt.Builder(RecordingLogger())
    logger = builder.logger
    assert isinstance(logger, RecordingLogger)
    with pytest.raises(RuntimeError):
        builder.create_optimization_profile().set_shape("kept", (-2,), (1,), (1,))
    assert any("kept" in m for m in logger.of_severity(trt.ILogger.ERROR))


def test_logger_min_severity_filters(capfd):
    quiet = trt.Logger(trt.Logger.ERROR)
    assert quiet.min_severity == trt.Logger.ERROR
    quiet.log(trt.Logger.WARNING, "should-not-appear-7f3a")
    quiet.log(trt.Logger.ERROR, "must-appear-91bc")
    quiet.min_severity = trt.Logger.VERBOSE
    quiet.log(trt.Logger.VERBOSE, "verbose-now-5d2e")
    default = trt.Logger()
    assert default.min_severity == trt.Logger.WARNING
    default.log(trt.Logger.INFO, "info-hidden-0c11")
    default.log(trt.Logger.WARNING, "warning-shown-64aa")
    err = capfd.readouterr().err
    assert "should-not-appear-7f3a" not in err
    assert "info-hidden-0c11" not in err
    assert "[E] must-appear-91bc" in err
    assert "[V] verbose-now-5d2e" in err
    assert "[W] warning-shown-64aa" in err


def test_logger_used_by_builder_prints_errors(capfd):
    builder = trt.Builder(trt.Logger(trt.Logger.WARNING))
    with pytest.raises(RuntimeError):
        builder.create_optimization_profile().set_shape("in0", (-3,), (1,), (1,))
    assert "in0" in capfd.readouterr().err


def test_logger_subclass_override_is_called():
    class Sub(trt.Logger):
        def __init__(self):
            trt.Logger.__init__(self, trt.Logger.VERBOSE)
            self.seen = []

        def log(self, severity, msg):
            self.seen.append((severity, msg))

    sub = Sub()
    builder = trt.Builder(sub)
    with pytest.raises(RuntimeError):
        builder.create_optimization_profile().set_shape("sub_input_x", (-3,), (1,), (1,))
    assert any(s == trt.Logger.ERROR and "sub_input_x" in m for s, m in sub.seen)


def test_logger_raising_exception_does_not_escape():
    class Bad(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)
            self.calls = 0

        def log(self, severity, msg):
            self.calls += 1
            raise ValueError("logger exploded")

    bad = Bad()
    builder = trt.Builder(bad)
    with pytest.raises(RuntimeError, match="set_shape failed"):
        builder.create_optimization_profile().set_shape("z", (-3,), (1,), (1,))
    assert bad.calls >= 1


def test_ilogger_without_log_method_is_reported(capfd):
    class Missing(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)

    builder = trt.Builder(Missing())
    with pytest.raises(RuntimeError):
        builder.create_optimization_profile().set_shape("w", (-3,), (1,), (1,))


def test_ilogger_called_from_other_threads(logger):
    builder = trt.Builder(logger)
    profiles = [builder.create_optimization_profile() for _ in range(4)]

    # All workers are alive together, so their thread idents are distinct (finished threads' idents are reused).
    barrier = threading.Barrier(len(profiles))

    def worker(profile, name):
        barrier.wait()
        with pytest.raises(RuntimeError):
            profile.set_shape(name, (-3,), (1,), (1,))
        barrier.wait()

    threads = [threading.Thread(target=worker, args=(p, f"thread_input_{i}")) for i, p in enumerate(profiles)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    errors = "\n".join(logger.of_severity(trt.ILogger.ERROR))
    for i in range(4):
        assert f"thread_input_{i}" in errors
    assert len(logger.threads) >= 2

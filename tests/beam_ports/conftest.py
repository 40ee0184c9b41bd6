"""The marks Beam's own tests carry are registered, as Beam's pytest configuration does."""

BEAM_MARKS = ("examples_postcommit", "it_postcommit", "sickbay_flink", "sickbay_dataflow")


def pytest_configure(config):
    for mark in BEAM_MARKS:
        config.addinivalue_line("markers", f"{mark}: a mark of Apache Beam's own test suite")

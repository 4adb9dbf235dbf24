"""Debian python3-kubernetes' own DynamicClient custom-resource tests against a server URL (argv[1]).

The package ships kubernetes/dynamic/test_client.py without its kubernetes.e2e_test helper; the helper
is supplied here (a Configuration pointing at the server), then the custom-resource cases are run.
"""
import sys
import types
import unittest

from kubernetes.client import Configuration

server = sys.argv[1]


def get_e2e_configuration():
    config = Configuration()
    config.host = server
    return config


base = types.ModuleType('kubernetes.e2e_test.base')
base.get_e2e_configuration = get_e2e_configuration
pkg = types.ModuleType('kubernetes.e2e_test')
pkg.base = base
sys.modules['kubernetes.e2e_test'] = pkg
sys.modules['kubernetes.e2e_test.base'] = base

from kubernetes.dynamic import test_client  # noqa: E402

cases = ['test_cluster_custom_resources', 'test_namespaced_custom_resources', 'test_async_namespaced_custom_resources']
suite = unittest.TestSuite(test_client.TestDynamicClient(c) for c in cases)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)

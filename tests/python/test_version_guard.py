"""Code generated for one CTK major refuses to compile against another's cuda.h."""
import pytest

from conftest import BuildFailed, build, include_dir


def test_13_code_against_12_headers_fails_clearly(ctk13, ctk12):
    with pytest.raises(BuildFailed) as failure:
        build(ctk13, cflags="-O0", modules=["cydriver"], cuda_home=include_dir(ctk12)[: -len("/include")])
    text = str(failure.value)
    assert "ctkgen: generated from cuda.h CUDA_VERSION 13" in text
    assert "compiled against cuda.h CUDA_VERSION 12" in text
    assert "CUtensorMap_st differs" in text

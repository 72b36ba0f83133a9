"""eager.vision additions: DatasetFolder/ImageFolder over a folder tree, and more
models (Paddle's architectures: output shapes, Paddle's parameter counts, one
backward pass each)."""
import os

import numpy as np
import pytest

import eager
from eager.vision import datasets as D

PIL_Image = pytest.importorskip("PIL.Image")


def _write_png(path, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    PIL_Image.fromarray(array).save(path)


@pytest.fixture
def tree(tmp_path):
    """root/dog/{0,1}.png, root/cat/{b,a}.png, root/cat/sub/c.png, plus a .txt and an empty class."""
    rng = np.random.default_rng(0)
    images = {}
    for rel in ["dog/0.png", "dog/1.png", "cat/b.png", "cat/a.PNG", "cat/sub/c.png"]:
        images[rel] = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
        _write_png(str(tmp_path / rel), images[rel])
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    (tmp_path / "empty").mkdir()
    return tmp_path, images


def test_dataset_folder_classes_samples_and_pixels(tree):
    root, images = tree
    ds = D.DatasetFolder(str(root))
    assert ds.classes == ["cat", "dog", "empty"]
    assert ds.class_to_idx == {"cat": 0, "dog": 1, "empty": 2}
    rel = [os.path.relpath(p, root).replace(os.sep, "/") for p, _ in ds.samples]
    assert rel == ["cat/a.PNG", "cat/b.png", "cat/sub/c.png", "dog/0.png", "dog/1.png"]
    assert ds.targets == [0, 0, 0, 1, 1] and len(ds) == 5
    image, label = ds[3]
    assert label == 1 and image.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(image), images["dog/0.png"])


def test_dataset_folder_cv2_backend_transform_and_dataloader(tree):
    root, images = tree
    eager.vision.set_image_backend("cv2")
    try:
        ds = D.DatasetFolder(root, transform=eager.vision.transforms.ToTensor())
        image, label = ds[1]
    finally:
        eager.vision.set_image_backend("pil")
    assert label == 0 and image.shape == [3, 5, 4]
    np.testing.assert_allclose(image.numpy(), images["cat/b.png"].transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batches = list(eager.io.DataLoader(ds, batch_size=5))
    assert batches[0][0].shape == [5, 3, 5, 4]
    np.testing.assert_array_equal(batches[0][1].numpy().ravel(), [0, 0, 0, 1, 1])


def test_dataset_folder_loader_extensions_and_is_valid_file(tree):
    root, _ = tree
    ds = D.DatasetFolder(root, loader=lambda p: os.path.basename(p), extensions=(".txt",))
    assert ds.samples == [(str(root / "dog" / "notes.txt"), 1)] and ds[0] == ("notes.txt", 1)
    ds = D.DatasetFolder(root, loader=os.path.basename, is_valid_file=lambda p: os.path.basename(p)[0] in "0c")
    assert [ds[i] for i in range(len(ds))] == [("c.png", 0), ("0.png", 1)]


def test_image_folder_flat_tree(tree):
    root, images = tree
    ds = D.ImageFolder(root)
    rel = [os.path.relpath(p, root).replace(os.sep, "/") for p in ds.samples]
    assert rel == ["cat/a.PNG", "cat/b.png", "cat/sub/c.png", "dog/0.png", "dog/1.png"]
    item = ds[4]
    assert isinstance(item, list) and len(item) == 1
    np.testing.assert_array_equal(np.asarray(item[0]), images["dog/1.png"])
    assert D.ImageFolder(root / "cat", loader=os.path.basename)[2] == ["c.png"]


def test_folder_datasets_errors(tree, tmp_path):
    root, _ = tree
    with pytest.raises(FileNotFoundError, match=r"DatasetFolder: argument 'root': no folder at .*missing"):
        D.DatasetFolder(root / "missing")
    with pytest.raises(TypeError, match="ImageFolder: argument 'root' expected a folder path, got int"):
        D.ImageFolder(3)
    with pytest.raises(RuntimeError, match="DatasetFolder: found no class folders in"):
        D.DatasetFolder(root / "empty")
    with pytest.raises(RuntimeError, match=r"DatasetFolder: found no files with extensions \.bmp in the class"):
        D.DatasetFolder(root, extensions=[".bmp"])
    with pytest.raises(RuntimeError, match="ImageFolder: found no files with extensions .* under"):
        D.ImageFolder(root / "empty")
    with pytest.raises(ValueError, match="DatasetFolder: pass 'extensions' or 'is_valid_file', not both"):
        D.DatasetFolder(root, extensions=(".png",), is_valid_file=bool)
    with pytest.raises(TypeError, match="ImageFolder: argument 'loader' expected a callable or None, got 3"):
        D.ImageFolder(root, loader=3)
    with pytest.raises(TypeError, match="DatasetFolder: argument 'extensions' expected a list or tuple of str"):
        D.DatasetFolder(root, extensions=[1])


def test_names_reachable_as_in_paddle():
    assert eager.vision.DatasetFolder is D.DatasetFolder and eager.vision.ImageFolder is D.ImageFolder

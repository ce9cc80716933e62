"""Files the Python benches share: a small pure-Python wheel with a correct RECORD."""
import base64, hashlib, zipfile


def wheel(folder, name, functions=200):
    files = {
        f"{name}/__init__.py": "".join(f"def f{i}(): return {i}\n" for i in range(functions)),
        f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(text.encode())}\n"
    record += f"{name}-1.0.dist-info/RECORD,,\n"
    files[f"{name}-1.0.dist-info/RECORD"] = record
    with zipfile.ZipFile(f"{folder}/{name}-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            zf.writestr(path, text)

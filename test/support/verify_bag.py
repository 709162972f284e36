"""Independent BagIt (RFC 8493) check of a bag inside a zip, using only Python's standard library.

Usage: verify_bag.py ZIP BAG_NAME
Exits 0 when the bag is complete and every checksum matches; otherwise prints each problem and exits 1.
It shares no code with the service, so a test that passes both is checked by two implementations.
"""
import hashlib
import sys
import zipfile
from urllib.parse import unquote


def main(zip_path: str, bag: str) -> int:
    problems = []
    with zipfile.ZipFile(zip_path) as archive:
        names = {n[len(bag) + 1:]: n for n in archive.namelist() if n.startswith(bag + "/") and not n.endswith("/")}
        other = [n for n in archive.namelist() if not n.startswith(bag + "/")]
        if other:
            problems.append(f"entries outside the bag folder: {other[:5]}")

        def read(rel):
            return archive.read(names[rel])

        def digest(rel, algorithm):
            h = hashlib.new(algorithm)
            with archive.open(names[rel]) as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            return h.hexdigest()

        if "bagit.txt" not in names:
            return report([f"bagit.txt is missing"])
        declaration = read("bagit.txt").decode("utf-8").splitlines()
        if len(declaration) != 2 or not declaration[0].startswith("BagIt-Version: ") or declaration[1] != "Tag-File-Character-Encoding: UTF-8":
            problems.append(f"bagit.txt is not a valid declaration: {declaration}")

        payload = {rel for rel in names if rel.startswith("data/")}
        manifests = [rel for rel in names if rel.startswith("manifest-") and rel.endswith(".txt")]
        if not manifests:
            problems.append("no payload manifest")
        for manifest in manifests:
            algorithm = manifest[len("manifest-"):-4]
            listed = set()
            for line in read(manifest).decode("utf-8").splitlines():
                checksum, path = line.split(None, 1)
                path = unquote(path)
                listed.add(path)
                if path not in names:
                    problems.append(f"{manifest}: {path} is missing")
                elif digest(path, algorithm) != checksum.lower():
                    problems.append(f"{manifest}: checksum of {path} differs")
            for path in payload - listed:
                problems.append(f"{manifest}: {path} is not listed")

        for tagmanifest in [rel for rel in names if rel.startswith("tagmanifest-") and rel.endswith(".txt")]:
            algorithm = tagmanifest[len("tagmanifest-"):-4]
            for line in read(tagmanifest).decode("utf-8").splitlines():
                checksum, path = line.split(None, 1)
                if path.startswith("data/") or path.startswith("tagmanifest-"):
                    problems.append(f"{tagmanifest}: lists {path}, which is not a tag file")
                elif path not in names or digest(path, algorithm) != checksum.lower():
                    problems.append(f"{tagmanifest}: {path} is missing or differs")

        if "bag-info.txt" in names:
            for line in read("bag-info.txt").decode("utf-8").splitlines():
                if line.startswith("Payload-Oxum: "):
                    octets, count = line.split(": ", 1)[1].split(".")
                    size = sum(archive.getinfo(names[rel]).file_size for rel in payload)
                    if (int(octets), int(count)) != (size, len(payload)):
                        problems.append(f"Payload-Oxum {octets}.{count} but found {size}.{len(payload)}")
    return report(problems)


def report(problems):
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

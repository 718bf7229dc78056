import os


def one():
    return 1


print(one(), os.sep)

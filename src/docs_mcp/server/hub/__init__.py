"""The libraries one server serves: parsed from ``--index``, opened in the background, watched or
followed, and swapped between requests. One index is a hub of one library.
"""

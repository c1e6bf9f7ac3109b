"""corpora"""

"""The isolated engine: the user's code in a child process that may die without taking the app along."""
